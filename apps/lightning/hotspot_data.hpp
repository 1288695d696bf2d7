#pragma once
// HotSpot's input, generated in place of Rodinia's files, and the sequential reference the
// distributed run is checked against.

#include <cstdint>
#include <vector>

#include "lightning/hotspot_kernels.hpp"

namespace strata::lightning {

// A rows x cols chip (row-major): a floorplan of 8 x 8 functional units, each with its own power
// density (10% to 100% of Rodinia's 3e6 W/m^2) and a per-cell ripple, and starting temperatures
// of 323.15 to 343.15 K, as Rodinia's inputs lie.
struct Chip {
  std::vector<float> temp;
  std::vector<float> power;
};
Chip generate_chip(std::uint64_t rows, std::uint64_t cols, std::uint64_t seed);

// `iterations` steps of the same f32 arithmetic as the kernels, in the same order, one cell after
// another; returns the last temperatures.
std::vector<float> hotspot_reference(const Chip& chip, std::uint64_t rows, std::uint64_t cols,
                                     int iterations, const HotspotConstants& constants);

}  // namespace strata::lightning
