#include "camera/sensor.hpp"

#include <algorithm>
#include <cmath>

#include "strata/base/error.hpp"

namespace strata::apps::camera {

LinearPattern draw_linear_pattern(std::uint32_t width, std::uint32_t height, float sigma,
                                  RandomStream& random) {
  LinearPattern pattern{std::vector<float>(height), std::vector<float>(width), {}};
  for (float& v : pattern.row_offsets)
    v = sigma * static_cast<float>(random.normal());
  for (float& v : pattern.column_offsets)
    v = sigma * static_cast<float>(random.normal());
  return pattern;
}

std::vector<float> draw_grid_pattern(float sigma, RandomStream& random) {
  std::vector<float> grid(std::size_t{LinearPattern::grid_side} * LinearPattern::grid_side);
  for (float& v : grid)
    v = sigma * static_cast<float>(random.normal());
  return grid;
}

Sensor draw_sensor(std::uint32_t width, std::uint32_t height, float prnu_sigma,
                   RandomStream& random) {
  Sensor sensor{width, height, std::vector<float>(std::size_t{width} * height)};
  for (float& k : sensor.prnu)
    k = prnu_sigma * static_cast<float>(random.normal());
  return sensor;
}

std::vector<std::uint8_t> expose(const RgbImage& scene, const Sensor& sensor,
                                 const LinearPattern& pattern, const SensorSettings& settings,
                                 RandomStream& random) {
  if (scene.width != sensor.width || scene.height != sensor.height ||
      pattern.row_offsets.size() != scene.height || pattern.column_offsets.size() != scene.width ||
      (!pattern.grid.empty() &&
       pattern.grid.size() != std::size_t{LinearPattern::grid_side} * LinearPattern::grid_side))
    throw Error("camera generator: scene, sensor and linear pattern differ in size");
  constexpr std::uint32_t side = LinearPattern::grid_side;
  const float read_variance = settings.read_noise_sigma * settings.read_noise_sigma;
  std::vector<std::uint8_t> photo(scene.values.size());
  for (std::uint32_t y = 0; y < scene.height; ++y) {
    for (std::uint32_t x = 0; x < scene.width; ++x) {
      const std::size_t pixel = std::size_t{y} * scene.width + x;
      const float gain = 1.0f + sensor.prnu[pixel];
      const float offset =
          pattern.row_offsets[y] + pattern.column_offsets[x] +
          (pattern.grid.empty() ? 0.0f : pattern.grid[(y % side) * side + x % side]);
      for (std::size_t c = 0; c < 3; ++c) {
        const float light = scene.values[pixel * 3 + c];
        const float noise = std::sqrt(settings.shot_noise_gain * light + read_variance) *
                            static_cast<float>(random.normal());
        const float value = light * gain + offset + noise;
        photo[pixel * 3 + c] = static_cast<std::uint8_t>(std::clamp(value, 0.0f, 255.0f) + 0.5f);
      }
    }
  }
  return photo;
}

}  // namespace strata::apps::camera
