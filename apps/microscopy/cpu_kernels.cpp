#include "microscopy/cpu_kernels.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>

#include "microscopy/device_layout.hpp"
#include "microscopy/gmm_overlap.hpp"
#include "strata/device/device.hpp"

namespace strata::apps::microscopy {
namespace {

using device::CpuBlock;
namespace L = layout;

constexpr float two_pi = 2.0f * std::numbers::pi_v<float>;

// Runs `body(g)` for every work-group whose first thread lies in this block, so each group is
// computed exactly once however the CPU backend splits the index space.
template <class Body>
void for_each_group(const CpuBlock& block, Body&& body) {
  const std::uint64_t first = (block.begin.x + L::group_size - 1) / L::group_size;
  for (std::uint64_t group = first; group * L::group_size < block.end.x; ++group)
    body(static_cast<std::uint32_t>(group));
}

// The compass neighbour `candidate` (0..26) of the comparison's state.
RigidTransform neighbour(const float* comparison, std::uint32_t candidate) {
  const auto step = [](std::uint32_t digit) { return static_cast<float>(digit) - 1.0f; };
  const float angle_step = comparison[L::state_angle_step];
  const float translation_step = comparison[L::state_translation_step];
  return {comparison[L::state_angle] + step(candidate % 3) * angle_step,
          comparison[L::state_tx] + step(candidate / 3 % 3) * translation_step,
          comparison[L::state_ty] + step(candidate / 9) * translation_step};
}

void select_coarse(float* comparison, std::uint32_t angles, float angle_step,
                   float translation_step) {
  const float* scores = comparison + L::candidate_scores;
  const std::uint32_t capacity = L::candidate_capacity(angles);
  std::uint32_t best = 0;
  for (std::uint32_t g = 1; g < angles; ++g)
    if (scores[g] > scores[best]) best = g;
  comparison[L::state_angle] = two_pi * static_cast<float>(best) / static_cast<float>(angles);
  comparison[L::state_tx] = scores[capacity + best];
  comparison[L::state_ty] = scores[2 * capacity + best];
  comparison[L::state_angle_step] = angle_step;
  comparison[L::state_translation_step] = translation_step;
  comparison[L::state_best] = scores[best];
}

void select_refined(float* comparison) {
  const float* scores = comparison + L::candidate_scores;
  std::uint32_t best = L::refine_center;
  for (std::uint32_t g = 0; g < L::refine_candidates; ++g)
    if (scores[g] > scores[best]) best = g;
  if (best == L::refine_center) {
    comparison[L::state_angle_step] *= 0.5f;
    comparison[L::state_translation_step] *= 0.5f;
  } else {
    const RigidTransform move = neighbour(comparison, best);
    comparison[L::state_angle] = move.angle;
    comparison[L::state_tx] = move.tx;
    comparison[L::state_ty] = move.ty;
  }
  comparison[L::state_best] = scores[best];
}

}  // namespace

void preprocess_cpu(const CpuBlock& block) {
  if (block.begin.x != 0) return;  // a single group
  const auto scale = block.scalar<float>(0);
  const float* parsed = block.array<float>(1);
  float* item = block.array<float>(2);
  const auto count = static_cast<std::uint32_t>(parsed[0]);
  double sum_x = 0;
  double sum_y = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    sum_x += parsed[L::parsed_header + 3 * i];
    sum_y += parsed[L::parsed_header + 3 * i + 1];
  }
  const auto cx = static_cast<float>(sum_x / count);
  const auto cy = static_cast<float>(sum_y / count);
  float* x = item + L::item_header;
  for (std::uint32_t i = 0; i < count; ++i) {
    x[i] = parsed[L::parsed_header + 3 * i] - cx;
    x[count + i] = parsed[L::parsed_header + 3 * i + 1] - cy;
    x[2 * count + i] = parsed[L::parsed_header + 3 * i + 2];
  }
  for (std::uint32_t k = 0; k < L::item_header; ++k)
    item[k] = 0;
  item[L::item_count] = parsed[0];
  item[L::item_centroid_x] = cx;
  item[L::item_centroid_y] = cy;
  const ItemArrays arrays = item_arrays(item);
  item[L::item_self_l2] = static_cast<float>(l2_overlap(arrays, arrays, {}, scale));
  item[L::item_self_bhattacharyya] = static_cast<float>(bhattacharyya_overlap(arrays, arrays, {}));
}

void candidate_scores_cpu(const CpuBlock& block) {
  const auto stage = block.scalar<std::uint32_t>(0);
  const auto angles = block.scalar<std::uint32_t>(1);
  const auto iterations = block.scalar<std::uint32_t>(2);
  const auto scale = block.scalar<float>(3);
  const ItemArrays left = item_arrays(block.array<const float>(4));
  const ItemArrays right = item_arrays(block.array<const float>(5));
  float* comparison = block.array<float>(6);
  float* scores = comparison + L::candidate_scores;
  const std::uint32_t capacity = L::candidate_capacity(angles);
  for_each_group(block, [&](std::uint32_t group) {
    if (stage == L::stage_refine) {
      scores[group] =
          static_cast<float>(l2_overlap(left, right, neighbour(comparison, group), scale));
      return;
    }
    RigidTransform move{two_pi * static_cast<float>(group) / static_cast<float>(angles)};
    for (std::uint32_t k = 0; k < iterations; ++k)
      move = shift_translation(left, right, move, scale);
    scores[group] = static_cast<float>(l2_overlap(left, right, move, scale));
    scores[capacity + group] = move.tx;
    scores[2 * capacity + group] = move.ty;
  });
}

void select_cpu(const CpuBlock& block) {
  if (block.begin.x != 0) return;  // a single thread
  float* comparison = block.array<float>(4);
  if (block.scalar<std::uint32_t>(0) == L::stage_refine) {
    select_refined(comparison);
  } else {
    select_coarse(comparison, block.scalar<std::uint32_t>(1), block.scalar<float>(2),
                  block.scalar<float>(3));
  }
}

void finish_cpu(const CpuBlock& block) {
  if (block.begin.x != 0) return;  // a single group
  const auto scale = block.scalar<float>(0);
  const float* left_item = block.array<const float>(1);
  const float* right_item = block.array<const float>(2);
  float* comparison = block.array<float>(3);
  const ItemArrays left = item_arrays(left_item);
  const ItemArrays right = item_arrays(right_item);
  const RigidTransform move{comparison[L::state_angle], comparison[L::state_tx],
                            comparison[L::state_ty]};
  const auto l2 = static_cast<float>(l2_overlap(left, right, move, scale));
  const auto bhattacharyya = static_cast<float>(bhattacharyya_overlap(left, right, move));
  comparison[L::result_raw_l2] = l2;
  comparison[L::result_raw_bhattacharyya] = bhattacharyya;
  comparison[L::result_score] =
      l2 / std::sqrt(left_item[L::item_self_l2] * right_item[L::item_self_l2]);
  comparison[L::result_bhattacharyya] =
      bhattacharyya /
      std::sqrt(left_item[L::item_self_bhattacharyya] * right_item[L::item_self_bhattacharyya]);
}

}  // namespace strata::apps::microscopy
