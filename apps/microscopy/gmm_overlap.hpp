#pragma once
// The registration's scores on the CPU, read in place from preprocessed particles: the GMM L2
// overlap and the Bhattacharyya overlap of a rigidly moved left particle with a right one. The
// CPU kernels use these; the OpenCL and CUDA kernels compute the same sums
// (registration_kernels.cpp).

#include <cmath>
#include <cstdint>

#include "microscopy/device_layout.hpp"

namespace strata::apps::microscopy {

// A preprocessed particle's arrays inside its item.
struct ItemArrays {
  std::uint32_t count = 0;
  const float* x = nullptr;
  const float* y = nullptr;
  const float* sigma = nullptr;
};

inline ItemArrays item_arrays(const float* item) {
  const auto count = static_cast<std::uint32_t>(item[layout::item_count]);
  const float* x = item + layout::item_header;
  return {count, x, x + count, x + 2 * count};
}

// Rotation (radians, counter-clockwise) then translation (nm), applied to the left particle.
struct RigidTransform {
  float angle = 0;
  float tx = 0;
  float ty = 0;
};

// Sum over i, j of exp(-|R x_i + t - y_j|^2 / (2 (s_i^2 + s_j^2 + scale^2))).
inline double l2_overlap(const ItemArrays& left, const ItemArrays& right,
                         const RigidTransform& move, float scale) {
  const float c = std::cos(move.angle);
  const float s = std::sin(move.angle);
  const float scale2 = scale * scale;
  double total = 0;
  for (std::uint32_t i = 0; i < left.count; ++i) {
    const float x = c * left.x[i] - s * left.y[i] + move.tx;
    const float y = s * left.x[i] + c * left.y[i] + move.ty;
    const float wi = left.sigma[i] * left.sigma[i] + scale2;
    float row = 0;
    for (std::uint32_t j = 0; j < right.count; ++j) {
      const float dx = x - right.x[j];
      const float dy = y - right.y[j];
      const float e = (dx * dx + dy * dy) / (2.0f * (wi + right.sigma[j] * right.sigma[j]));
      if (e < layout::overlap_cutoff) row += std::exp(-e);
    }
    total += row;
  }
  return total;
}

// One mean-shift step of the translation at a fixed rotation: t becomes the mean offset
// y_j - R x_i weighted by exp(-e_ij) / (s_i^2 + s_j^2 + scale^2), where the L2 overlap's gradient
// in t vanishes. Unchanged when no pair overlaps.
inline RigidTransform shift_translation(const ItemArrays& left, const ItemArrays& right,
                                        const RigidTransform& move, float scale) {
  const float c = std::cos(move.angle);
  const float s = std::sin(move.angle);
  const float scale2 = scale * scale;
  double weight = 0;
  double offset_x = 0;
  double offset_y = 0;
  for (std::uint32_t i = 0; i < left.count; ++i) {
    const float x = c * left.x[i] - s * left.y[i];
    const float y = s * left.x[i] + c * left.y[i];
    const float wi = left.sigma[i] * left.sigma[i] + scale2;
    float row_weight = 0;
    float row_x = 0;
    float row_y = 0;
    for (std::uint32_t j = 0; j < right.count; ++j) {
      const float dx = right.x[j] - x;
      const float dy = right.y[j] - y;
      const float variance = wi + right.sigma[j] * right.sigma[j];
      const float ex = dx - move.tx;
      const float ey = dy - move.ty;
      const float e = (ex * ex + ey * ey) / (2.0f * variance);
      if (e < layout::overlap_cutoff) {
        const float a = std::exp(-e) / variance;
        row_weight += a;
        row_x += a * dx;
        row_y += a * dy;
      }
    }
    weight += row_weight;
    offset_x += row_x;
    offset_y += row_y;
  }
  if (!(weight > 0)) return move;
  return {move.angle, static_cast<float>(offset_x / weight), static_cast<float>(offset_y / weight)};
}

// Sum over i, j of the Bhattacharyya coefficient of N(R x_i + t, s_i^2) and N(y_j, s_j^2):
// 2 s_i s_j / (s_i^2 + s_j^2) * exp(-|R x_i + t - y_j|^2 / (4 (s_i^2 + s_j^2))).
inline double bhattacharyya_overlap(const ItemArrays& left, const ItemArrays& right,
                                    const RigidTransform& move) {
  const float c = std::cos(move.angle);
  const float s = std::sin(move.angle);
  double total = 0;
  for (std::uint32_t i = 0; i < left.count; ++i) {
    const float x = c * left.x[i] - s * left.y[i] + move.tx;
    const float y = s * left.x[i] + c * left.y[i] + move.ty;
    const float si = left.sigma[i];
    float row = 0;
    for (std::uint32_t j = 0; j < right.count; ++j) {
      const float dx = x - right.x[j];
      const float dy = y - right.y[j];
      const float sj = right.sigma[j];
      const float variance = si * si + sj * sj;
      const float e = (dx * dx + dy * dy) / (4.0f * variance);
      if (e < layout::overlap_cutoff) row += 2.0f * si * sj / variance * std::exp(-e);
    }
    total += row;
  }
  return total;
}

}  // namespace strata::apps::microscopy
