#pragma once
// Synthetic scenes: what a lens projects onto a sensor, different for every photo — a lit
// background with a gradient, soft blobs, hard-edged shapes, a fine texture and the lens's
// vignetting. Linear RGB intensities on the 0-255 scale, kept clear of black and saturation so
// the sensor's multiplicative noise survives in every pixel (as in usable forensic photos).

#include <cstdint>
#include <vector>

#include "camera/random_stream.hpp"

namespace strata::apps::camera {

// An RGB image of floats, row-major, channels interleaved (r, g, b).
struct RgbImage {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<float> values;  // width * height * 3
};

// Renders a new random scene of the given size from `random`.
RgbImage render_scene(std::uint32_t width, std::uint32_t height, RandomStream& random);

}  // namespace strata::apps::camera
