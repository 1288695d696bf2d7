#include "microscopy/opencl_kernels.hpp"

namespace strata::apps::microscopy {
namespace {

// Helpers the kernels share. Work-group sums go through __local scratch the kernel declares
// (OpenCL 1.2 allows __local variables at kernel scope only).
constexpr const char* prelude = R"(
float group_sum(__local float* scratch, float value) {
  const uint t = get_local_id(0);
  scratch[t] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = GROUP_SIZE / 2; stride > 0; stride /= 2) {
    if (t < stride) scratch[t] += scratch[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

// This thread's share (rows first, first + stride, ...) of the GMM L2 overlap of the moved left
// particle with the right one; with bhattacharyya != 0, of the Bhattacharyya overlap instead.
float overlap_rows(__global const float* left, __global const float* right, float angle,
                   float tx, float ty, float scale, int bhattacharyya) {
  const uint n = (uint)left[ITEM_COUNT];
  const uint m = (uint)right[ITEM_COUNT];
  __global const float* lx = left + ITEM_HEADER;
  __global const float* ly = lx + n;
  __global const float* ls = ly + n;
  __global const float* rx = right + ITEM_HEADER;
  __global const float* ry = rx + m;
  __global const float* rs = ry + m;
  const float c = cos(angle);
  const float s = sin(angle);
  const float scale2 = scale * scale;
  float sum = 0.0f;
  for (uint i = get_local_id(0); i < n; i += GROUP_SIZE) {
    const float x = c * lx[i] - s * ly[i] + tx;
    const float y = s * lx[i] + c * ly[i] + ty;
    const float si = ls[i];
    float row = 0.0f;
    for (uint j = 0; j < m; ++j) {
      const float dx = x - rx[j];
      const float dy = y - ry[j];
      const float sj = rs[j];
      if (bhattacharyya) {
        const float variance = si * si + sj * sj;
        const float e = (dx * dx + dy * dy) / (4.0f * variance);
        if (e < OVERLAP_CUTOFF) row += 2.0f * si * sj / variance * exp(-e);
      } else {
        const float e = (dx * dx + dy * dy) / (2.0f * (si * si + sj * sj + scale2));
        if (e < OVERLAP_CUTOFF) row += exp(-e);
      }
    }
    sum += row;
  }
  return sum;
}

// This thread's share of the mean-shift sums of the translation at rotation `angle`: the weights
// exp(-e) / variance and the weighted offsets y_j - R x_i (see shift_translation on the CPU).
float3 translation_rows(__global const float* left, __global const float* right, float angle,
                        float tx, float ty, float scale) {
  const uint n = (uint)left[ITEM_COUNT];
  const uint m = (uint)right[ITEM_COUNT];
  __global const float* lx = left + ITEM_HEADER;
  __global const float* ly = lx + n;
  __global const float* ls = ly + n;
  __global const float* rx = right + ITEM_HEADER;
  __global const float* ry = rx + m;
  __global const float* rs = ry + m;
  const float c = cos(angle);
  const float s = sin(angle);
  const float scale2 = scale * scale;
  float3 sums = (float3)(0.0f, 0.0f, 0.0f);
  for (uint i = get_local_id(0); i < n; i += GROUP_SIZE) {
    const float x = c * lx[i] - s * ly[i];
    const float y = s * lx[i] + c * ly[i];
    const float wi = ls[i] * ls[i] + scale2;
    float3 row = (float3)(0.0f, 0.0f, 0.0f);
    for (uint j = 0; j < m; ++j) {
      const float dx = rx[j] - x;
      const float dy = ry[j] - y;
      const float variance = wi + rs[j] * rs[j];
      const float ex = dx - tx;
      const float ey = dy - ty;
      const float e = (ex * ex + ey * ey) / (2.0f * variance);
      if (e < OVERLAP_CUTOFF) {
        const float a = exp(-e) / variance;
        row += (float3)(a, a * dx, a * dy);
      }
    }
    sums += row;
  }
  return sums;
}
)";

// The compass neighbour of the state (see neighbour() in cpu_kernels.cpp).
constexpr const char* neighbour = R"(
float3 neighbour(__global const float* comparison, uint candidate) {
  const float angle_step = comparison[STATE_ANGLE_STEP];
  const float translation_step = comparison[STATE_TRANSLATION_STEP];
  return (float3)(comparison[STATE_ANGLE] + ((float)(candidate % 3) - 1.0f) * angle_step,
                  comparison[STATE_TX] + ((float)(candidate / 3 % 3) - 1.0f) * translation_step,
                  comparison[STATE_TY] + ((float)(candidate / 9) - 1.0f) * translation_step);
}
)";

constexpr const char* preprocess = R"(
__kernel void microscopy_preprocess(float scale, __global const float* parsed,
                                    __global float* item) {
  __local float scratch[GROUP_SIZE];
  const uint t = get_local_id(0);
  const uint n = (uint)parsed[0];
  float sx = 0.0f;
  float sy = 0.0f;
  for (uint i = t; i < n; i += GROUP_SIZE) {
    sx += parsed[PARSED_HEADER + 3 * i];
    sy += parsed[PARSED_HEADER + 3 * i + 1];
  }
  const float cx = group_sum(scratch, sx) / (float)n;
  const float cy = group_sum(scratch, sy) / (float)n;
  __global float* x = item + ITEM_HEADER;
  for (uint i = t; i < n; i += GROUP_SIZE) {
    x[i] = parsed[PARSED_HEADER + 3 * i] - cx;
    x[n + i] = parsed[PARSED_HEADER + 3 * i + 1] - cy;
    x[2 * n + i] = parsed[PARSED_HEADER + 3 * i + 2];
  }
  if (t < ITEM_HEADER) item[t] = 0.0f;
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (t == 0) {
    item[ITEM_COUNT] = parsed[0];
    item[ITEM_CENTROID_X] = cx;
    item[ITEM_CENTROID_Y] = cy;
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  const float l2 = group_sum(scratch, overlap_rows(item, item, 0.0f, 0.0f, 0.0f, scale, 0));
  const float bhattacharyya =
      group_sum(scratch, overlap_rows(item, item, 0.0f, 0.0f, 0.0f, scale, 1));
  if (t == 0) {
    item[ITEM_SELF_L2] = l2;
    item[ITEM_SELF_BHATTACHARYYA] = bhattacharyya;
  }
}
)";

constexpr const char* candidate_scores = R"(
__kernel void microscopy_candidate_scores(uint stage, uint angles, uint iterations, float scale,
                                          __global const float* left,
                                          __global const float* right,
                                          __global float* comparison) {
  // Barriers stay out of branches that return early: every work-item runs the same loop.
  __local float scratch[GROUP_SIZE];
  const uint g = get_group_id(0);
  const uint capacity = max(angles, (uint)REFINE_CANDIDATES);
  const int refine = stage == STAGE_REFINE;
  const float3 start = refine ? neighbour(comparison, g)
                              : (float3)(2.0f * M_PI_F * (float)g / (float)angles, 0.0f, 0.0f);
  const float angle = start.x;
  float tx = start.y;
  float ty = start.z;
  const uint steps = refine ? 0u : iterations;
  for (uint k = 0; k < steps; ++k) {
    const float3 sums = translation_rows(left, right, angle, tx, ty, scale);
    const float weight = group_sum(scratch, sums.x);
    const float offset_x = group_sum(scratch, sums.y);
    const float offset_y = group_sum(scratch, sums.z);
    if (weight > 0.0f) {
      tx = offset_x / weight;
      ty = offset_y / weight;
    }
  }
  const float score = group_sum(scratch, overlap_rows(left, right, angle, tx, ty, scale, 0));
  if (get_local_id(0) == 0) {
    __global float* scores = comparison + CANDIDATE_SCORES;
    scores[g] = score;
    if (!refine) {
      scores[capacity + g] = tx;
      scores[2 * capacity + g] = ty;
    }
  }
}
)";

constexpr const char* select = R"(
__kernel void microscopy_select(uint stage, uint angles, float angle_step, float translation_step,
                                __global float* comparison) {
  if (get_global_id(0) != 0) return;
  __global const float* scores = comparison + CANDIDATE_SCORES;
  if (stage == STAGE_REFINE) {
    uint best = REFINE_CENTER;
    for (uint g = 0; g < REFINE_CANDIDATES; ++g)
      if (scores[g] > scores[best]) best = g;
    if (best == REFINE_CENTER) {
      comparison[STATE_ANGLE_STEP] *= 0.5f;
      comparison[STATE_TRANSLATION_STEP] *= 0.5f;
    } else {
      const float3 move = neighbour(comparison, best);
      comparison[STATE_ANGLE] = move.x;
      comparison[STATE_TX] = move.y;
      comparison[STATE_TY] = move.z;
    }
    comparison[STATE_BEST] = scores[best];
    return;
  }
  const uint capacity = max(angles, (uint)REFINE_CANDIDATES);
  uint best = 0;
  for (uint g = 1; g < angles; ++g)
    if (scores[g] > scores[best]) best = g;
  comparison[STATE_ANGLE] = 2.0f * M_PI_F * (float)best / (float)angles;
  comparison[STATE_TX] = scores[capacity + best];
  comparison[STATE_TY] = scores[2 * capacity + best];
  comparison[STATE_ANGLE_STEP] = angle_step;
  comparison[STATE_TRANSLATION_STEP] = translation_step;
  comparison[STATE_BEST] = scores[best];
}
)";

constexpr const char* finish = R"(
__kernel void microscopy_finish(float scale, __global const float* left,
                                __global const float* right, __global float* comparison) {
  __local float scratch[GROUP_SIZE];
  const float angle = comparison[STATE_ANGLE];
  const float tx = comparison[STATE_TX];
  const float ty = comparison[STATE_TY];
  const float l2 = group_sum(scratch, overlap_rows(left, right, angle, tx, ty, scale, 0));
  const float bhattacharyya =
      group_sum(scratch, overlap_rows(left, right, angle, tx, ty, scale, 1));
  if (get_local_id(0) == 0) {
    comparison[RESULT_RAW_L2] = l2;
    comparison[RESULT_RAW_BHATTACHARYYA] = bhattacharyya;
    comparison[RESULT_SCORE] = l2 / sqrt(left[ITEM_SELF_L2] * right[ITEM_SELF_L2]);
    comparison[RESULT_BHATTACHARYYA] =
        bhattacharyya / sqrt(left[ITEM_SELF_BHATTACHARYYA] * right[ITEM_SELF_BHATTACHARYYA]);
  }
}
)";

}  // namespace

std::string preprocess_opencl() {
  return std::string(prelude) + preprocess;
}

std::string candidate_scores_opencl() {
  return std::string(prelude) + neighbour + candidate_scores;
}

std::string select_opencl() {
  return std::string(neighbour) + select;
}

std::string finish_opencl() {
  return std::string(prelude) + finish;
}

}  // namespace strata::apps::microscopy
