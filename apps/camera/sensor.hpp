#pragma once
// Simulated camera sensors: each camera's photo-response non-uniformity (PRNU, a fixed per-pixel
// gain factor K: the fingerprint the application finds), the patterns every camera of the model
// shares (row and column offsets, and optionally an 8x8-periodic grid of offsets: non-unique
// artefacts that would match cameras wrongly if not removed), shot noise and read noise; a photo
// is the scene through them, rounded to 8 bits.

#include <cstdint>
#include <vector>

#include "camera/random_stream.hpp"
#include "camera/scene.hpp"

namespace strata::apps::camera {

// How the simulated sensors behave (every camera is of the same model).
struct SensorSettings {
  float prnu_sigma = 0.02f;           // standard deviation of the per-pixel gain factor K
  float linear_pattern_sigma = 1.0f;  // row and column offsets shared by the model (grey levels)
  float grid_pattern_sigma = 0.0f;    // the model's 8x8-periodic offsets (grey levels; 0: none)
  float shot_noise_gain = 0.1f;       // shot-noise variance per unit of intensity
  float read_noise_sigma = 1.5f;      // read noise (grey levels)
};

// The model's fixed offsets, the same in every camera: per row and per column, and an 8x8 grid
// repeated over the image (the period of JPEG's blocks and of a processing pipeline's tiles; no
// sum of a row and a column term, so zero-mean rows and columns leave most of it).
struct LinearPattern {
  static constexpr std::uint32_t grid_side = 8;
  std::vector<float> row_offsets;     // one per row
  std::vector<float> column_offsets;  // one per column
  std::vector<float> grid;            // grid_side x grid_side, row-major; empty: none
};
LinearPattern draw_linear_pattern(std::uint32_t width, std::uint32_t height, float sigma,
                                  RandomStream& random);
// The grid's offsets, normal with standard deviation `sigma` (grey levels).
std::vector<float> draw_grid_pattern(float sigma, RandomStream& random);

// One camera's sensor fingerprint: K per pixel (row-major).
struct Sensor {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<float> prnu;
};
Sensor draw_sensor(std::uint32_t width, std::uint32_t height, float prnu_sigma,
                   RandomStream& random);

// Takes a photo of `scene` (its size must be the sensor's): per channel
// I = scene * (1 + K) + row/column/grid offsets + shot and read noise, rounded and clipped to 8
// bits; RGB interleaved.
std::vector<std::uint8_t> expose(const RgbImage& scene, const Sensor& sensor,
                                 const LinearPattern& pattern, const SensorSettings& settings,
                                 RandomStream& random);

}  // namespace strata::apps::camera
