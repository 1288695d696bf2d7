#include "camera/scene.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace strata::apps::camera {
namespace {

constexpr float darkest = 12.0f;     // scenes stay above the sensor's noise floor ...
constexpr float brightest = 232.0f;  // ... and below saturation, even after PRNU and noise

// A colour: a per-channel factor around 1.
using Tint = std::array<float, 3>;

Tint random_tint(RandomStream& random, double spread) {
  return {static_cast<float>(random.uniform(1.0 - spread, 1.0 + spread)),
          static_cast<float>(random.uniform(1.0 - spread, 1.0 + spread)),
          static_cast<float>(random.uniform(1.0 - spread, 1.0 + spread))};
}

// A soft Gaussian blob of light or shadow.
struct Blob {
  float cx, cy, radius, amplitude;
  Tint tint;
};

// A hard-edged object: a disc or a rotated rectangle with its own brightness.
struct Shape {
  bool disc;
  float cx, cy, half_u, half_v, cos_a, sin_a, amplitude;
  Tint tint;
  bool contains(float x, float y) const {
    const float dx = x - cx, dy = y - cy;
    if (disc) return dx * dx + dy * dy <= half_u * half_u;
    const float u = dx * cos_a + dy * sin_a, v = -dx * sin_a + dy * cos_a;
    return std::abs(u) <= half_u && std::abs(v) <= half_v;
  }
};

// Value noise: random values on a lattice of `cell` pixels, smoothly interpolated.
class ValueNoise {
 public:
  ValueNoise(std::uint32_t width, std::uint32_t height, float cell, RandomStream& random)
      : cell_(cell),
        columns_(static_cast<std::uint32_t>(static_cast<float>(width) / cell) + 2),
        rows_(static_cast<std::uint32_t>(static_cast<float>(height) / cell) + 2),
        lattice_(std::size_t{columns_} * rows_) {
    for (float& v : lattice_)
      v = static_cast<float>(random.uniform(-1.0, 1.0));
  }
  float at(float x, float y) const {
    const float gx = x / cell_, gy = y / cell_;
    const auto ix = static_cast<std::uint32_t>(gx), iy = static_cast<std::uint32_t>(gy);
    const float fx = smooth(gx - static_cast<float>(ix)), fy = smooth(gy - static_cast<float>(iy));
    const float* top = &lattice_[std::size_t{iy} * columns_ + ix];
    const float* bottom = top + columns_;
    const float upper = top[0] + (top[1] - top[0]) * fx;
    const float lower = bottom[0] + (bottom[1] - bottom[0]) * fx;
    return upper + (lower - upper) * fy;
  }

 private:
  static float smooth(float t) { return t * t * (3.0f - 2.0f * t); }
  float cell_;
  std::uint32_t columns_, rows_;
  std::vector<float> lattice_;
};

}  // namespace

RgbImage render_scene(std::uint32_t width, std::uint32_t height, RandomStream& random) {
  const auto w = static_cast<float>(width), h = static_cast<float>(height);
  const float size = std::min(w, h);

  const auto base = static_cast<float>(random.uniform(80.0, 170.0));
  const auto slope_x = static_cast<float>(random.uniform(-50.0, 50.0));
  const auto slope_y = static_cast<float>(random.uniform(-50.0, 50.0));
  const Tint light = random_tint(random, 0.15);

  std::vector<Blob> blobs(3 + random.below(6));
  for (Blob& b : blobs) {
    b = {static_cast<float>(random.uniform(0.0, w)), static_cast<float>(random.uniform(0.0, h)),
         static_cast<float>(random.uniform(0.05, 0.3)) * size,
         static_cast<float>(random.uniform(-55.0, 55.0)), random_tint(random, 0.3)};
  }
  std::vector<Shape> shapes(1 + random.below(4));
  for (Shape& s : shapes) {
    const double angle = random.uniform(0.0, 3.14159265358979);
    s = {random.uniform() < 0.4,
         static_cast<float>(random.uniform(0.0, w)),
         static_cast<float>(random.uniform(0.0, h)),
         static_cast<float>(random.uniform(0.04, 0.25)) * size,
         static_cast<float>(random.uniform(0.04, 0.25)) * size,
         static_cast<float>(std::cos(angle)),
         static_cast<float>(std::sin(angle)),
         static_cast<float>(random.uniform(-40.0, 40.0)),
         random_tint(random, 0.3)};
  }
  const ValueNoise texture(width, height, static_cast<float>(random.uniform(3.0, 16.0)), random);
  const auto texture_amplitude = static_cast<float>(random.uniform(1.0, 6.0));
  const auto vignetting = static_cast<float>(random.uniform(0.1, 0.3));

  // Blobs are separable: exp(-(dx² + dy²) / 2r²) = exp(-dx² / 2r²) exp(-dy² / 2r²).
  const auto profile = [](std::uint32_t length, float centre, float radius) {
    std::vector<float> values(length);
    for (std::uint32_t i = 0; i < length; ++i) {
      const float d = static_cast<float>(i) + 0.5f - centre;
      values[i] = std::exp(-d * d / (2.0f * radius * radius));
    }
    return values;
  };
  std::vector<std::vector<float>> blob_columns, blob_rows;
  for (const Blob& b : blobs) {
    blob_columns.push_back(profile(width, b.cx, b.radius));
    blob_rows.push_back(profile(height, b.cy, b.radius));
  }

  RgbImage image{width, height, std::vector<float>(std::size_t{width} * height * 3)};
  std::vector<float> row_glow(blobs.size());
  for (std::uint32_t y = 0; y < height; ++y) {
    const float fy = static_cast<float>(y) + 0.5f;
    const float ny = fy / h - 0.5f;
    for (std::size_t k = 0; k < blobs.size(); ++k)
      row_glow[k] = blobs[k].amplitude * blob_rows[k][y];
    float* rgb = &image.values[std::size_t{y} * width * 3];
    for (std::uint32_t x = 0; x < width; ++x, rgb += 3) {
      const float fx = static_cast<float>(x) + 0.5f;
      const float nx = fx / w - 0.5f;
      const float ground =
          base + slope_x * nx + slope_y * ny + texture_amplitude * texture.at(fx, fy);
      float r = ground * light[0], g = ground * light[1], b = ground * light[2];
      for (std::size_t k = 0; k < blobs.size(); ++k) {
        const float glow = row_glow[k] * blob_columns[k][x];
        r += glow * blobs[k].tint[0];
        g += glow * blobs[k].tint[1];
        b += glow * blobs[k].tint[2];
      }
      for (const Shape& s : shapes) {
        if (!s.contains(fx, fy)) continue;
        r += s.amplitude * s.tint[0];
        g += s.amplitude * s.tint[1];
        b += s.amplitude * s.tint[2];
      }
      const float falloff = 1.0f - vignetting * 2.0f * (nx * nx + ny * ny);
      rgb[0] = std::clamp(r * falloff, darkest, brightest);
      rgb[1] = std::clamp(g * falloff, darkest, brightest);
      rgb[2] = std::clamp(b * falloff, darkest, brightest);
    }
  }
  return image;
}

}  // namespace strata::apps::camera
