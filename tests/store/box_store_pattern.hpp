#pragma once
// What box_store_writer writes: tiles of a 2-D field whose values say which tile and which pass
// wrote them, so that a reader checks every stored box is whole and of one pass.

#include <array>
#include <cstdint>
#include <vector>

#include "strata/store/box_store.hpp"

namespace strata::store::testing {

inline const DataKey field{"field", "pixels", 0, 0};
inline constexpr std::uint64_t tile_side = 64;
inline constexpr std::uint64_t tiles = 16;  // in a row
inline constexpr std::uint64_t tile_bytes = tile_side * tile_side * sizeof(double);

inline Region tile_box(std::uint64_t tile) {
  return Region::of(std::array<std::uint64_t, 2>{0, tile * tile_side},
                    std::array<std::uint64_t, 2>{tile_side, (tile + 1) * tile_side});
}

inline double tile_value(std::uint64_t tile, std::int64_t pass, std::uint64_t element) {
  return static_cast<double>(pass) * 1e6 + static_cast<double>(tile) * 1e4 +
         static_cast<double>(element);
}

inline std::vector<double> tile_values(std::uint64_t tile, std::int64_t pass) {
  std::vector<double> values(tile_side * tile_side);
  for (std::uint64_t i = 0; i < values.size(); ++i)
    values[i] = tile_value(tile, pass, i);
  return values;
}

}  // namespace strata::store::testing
