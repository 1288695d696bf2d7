#include "lightning/hotspot_data.hpp"

#include <random>
#include <utility>

namespace strata::lightning {

Chip generate_chip(std::uint64_t rows, std::uint64_t cols, std::uint64_t seed) {
  constexpr std::uint64_t units = 8;  // per side
  // Rodinia's largest power per cell: 3e6 W/m^2 over a cell of 0.016 / 512 m a side.
  constexpr double cell_side = 0.016 / 512;
  constexpr float max_power = static_cast<float>(3.0e6 * cell_side * cell_side);
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> density(0.1f, 1.0f);
  std::uniform_real_distribution<float> ripple(0.95f, 1.0f);
  std::uniform_real_distribution<float> start(323.15f, 343.15f);
  std::vector<float> unit_power(units * units);
  for (float& value : unit_power)
    value = max_power * density(random);
  Chip chip;
  chip.temp.resize(rows * cols);
  chip.power.resize(rows * cols);
  for (std::uint64_t i = 0; i < rows; ++i) {
    for (std::uint64_t j = 0; j < cols; ++j) {
      const std::uint64_t unit = (i * units / rows) * units + j * units / cols;
      chip.power[i * cols + j] = unit_power[unit] * ripple(random);
      chip.temp[i * cols + j] = start(random);
    }
  }
  return chip;
}

std::vector<float> hotspot_reference(const Chip& chip, std::uint64_t rows, std::uint64_t cols,
                                     int iterations, const HotspotConstants& constants) {
  std::vector<float> temp = chip.temp;
  std::vector<float> out(temp.size());
  const auto& c = constants;
  for (int it = 0; it < iterations; ++it) {
    for (std::uint64_t i = 0; i < rows; ++i) {
      const std::uint64_t north = i == 0 ? i : i - 1;
      const std::uint64_t south = i + 1 < rows ? i + 1 : i;
      for (std::uint64_t j = 0; j < cols; ++j) {
        const std::uint64_t west = j == 0 ? j : j - 1;
        const std::uint64_t east = j + 1 < cols ? j + 1 : j;
        const float t = temp[i * cols + j];
        out[i * cols + j] =
            t + c.step_div_cap *
                    (chip.power[i * cols + j] +
                     (temp[south * cols + j] + temp[north * cols + j] - 2.0f * t) * c.ry_1 +
                     (temp[i * cols + east] + temp[i * cols + west] - 2.0f * t) * c.rx_1 +
                     (c.ambient - t) * c.rz_1);
      }
    }
    std::swap(temp, out);
  }
  return temp;
}

}  // namespace strata::lightning
