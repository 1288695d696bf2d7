#include "microscopy/cuda_kernels.hpp"

namespace strata::apps::microscopy {
namespace {

// Helpers the kernels share (see opencl_kernels.cpp for what each computes). The divisions of the
// pair loops are __fdividef (2 ulp), the precision OpenCL C's `/` promises and NVIDIA's OpenCL
// compiles by default, not CUDA's default IEEE division (div.rn.f32, several instructions more).
constexpr const char* prelude = R"(
__device__ float group_sum(float* scratch, float value) {
  const unsigned int t = threadIdx.x;
  scratch[t] = value;
  __syncthreads();
  for (unsigned int stride = GROUP_SIZE / 2; stride > 0; stride /= 2) {
    if (t < stride) scratch[t] += scratch[t + stride];
    __syncthreads();
  }
  const float total = scratch[0];
  __syncthreads();
  return total;
}

__device__ float overlap_rows(const float* left, const float* right, float angle, float tx,
                              float ty, float scale, int bhattacharyya) {
  const unsigned int n = (unsigned int)left[ITEM_COUNT];
  const unsigned int m = (unsigned int)right[ITEM_COUNT];
  const float* lx = left + ITEM_HEADER;
  const float* ly = lx + n;
  const float* ls = ly + n;
  const float* rx = right + ITEM_HEADER;
  const float* ry = rx + m;
  const float* rs = ry + m;
  const float c = cosf(angle);
  const float s = sinf(angle);
  const float scale2 = scale * scale;
  float sum = 0.0f;
  for (unsigned int i = threadIdx.x; i < n; i += GROUP_SIZE) {
    const float x = c * lx[i] - s * ly[i] + tx;
    const float y = s * lx[i] + c * ly[i] + ty;
    const float si = ls[i];
    float row = 0.0f;
    for (unsigned int j = 0; j < m; ++j) {
      const float dx = x - rx[j];
      const float dy = y - ry[j];
      const float sj = rs[j];
      if (bhattacharyya) {
        const float variance = si * si + sj * sj;
        const float e = __fdividef(dx * dx + dy * dy, 4.0f * variance);
        if (e < OVERLAP_CUTOFF) row += __fdividef(2.0f * si * sj, variance) * expf(-e);
      } else {
        const float e = __fdividef(dx * dx + dy * dy, 2.0f * (si * si + sj * sj + scale2));
        if (e < OVERLAP_CUTOFF) row += expf(-e);
      }
    }
    sum += row;
  }
  return sum;
}

__device__ float3 translation_rows(const float* left, const float* right, float angle, float tx,
                                   float ty, float scale) {
  const unsigned int n = (unsigned int)left[ITEM_COUNT];
  const unsigned int m = (unsigned int)right[ITEM_COUNT];
  const float* lx = left + ITEM_HEADER;
  const float* ly = lx + n;
  const float* ls = ly + n;
  const float* rx = right + ITEM_HEADER;
  const float* ry = rx + m;
  const float* rs = ry + m;
  const float c = cosf(angle);
  const float s = sinf(angle);
  const float scale2 = scale * scale;
  float3 sums = make_float3(0.0f, 0.0f, 0.0f);
  for (unsigned int i = threadIdx.x; i < n; i += GROUP_SIZE) {
    const float x = c * lx[i] - s * ly[i];
    const float y = s * lx[i] + c * ly[i];
    const float wi = ls[i] * ls[i] + scale2;
    float3 row = make_float3(0.0f, 0.0f, 0.0f);
    for (unsigned int j = 0; j < m; ++j) {
      const float dx = rx[j] - x;
      const float dy = ry[j] - y;
      const float variance = wi + rs[j] * rs[j];
      const float ex = dx - tx;
      const float ey = dy - ty;
      const float e = __fdividef(ex * ex + ey * ey, 2.0f * variance);
      if (e < OVERLAP_CUTOFF) {
        const float a = __fdividef(expf(-e), variance);
        row.x += a;
        row.y += a * dx;
        row.z += a * dy;
      }
    }
    sums.x += row.x;
    sums.y += row.y;
    sums.z += row.z;
  }
  return sums;
}
)";

// The compass neighbour of the state, and OpenCL's M_PI_F (pi rounded to float) for the angles.
constexpr const char* neighbour_source = R"(
#define STRATA_PI_F 3.14159274101257f

__device__ float3 neighbour(const float* comparison, unsigned int candidate) {
  const float angle_step = comparison[STATE_ANGLE_STEP];
  const float translation_step = comparison[STATE_TRANSLATION_STEP];
  return make_float3(
      comparison[STATE_ANGLE] + ((float)(candidate % 3) - 1.0f) * angle_step,
      comparison[STATE_TX] + ((float)(candidate / 3 % 3) - 1.0f) * translation_step,
      comparison[STATE_TY] + ((float)(candidate / 9) - 1.0f) * translation_step);
}
)";

constexpr const char* preprocess = R"(
extern "C" __global__ void microscopy_preprocess(float scale, const float* parsed, float* item) {
  __shared__ float scratch[GROUP_SIZE];
  const unsigned int t = threadIdx.x;
  const unsigned int n = (unsigned int)parsed[0];
  float sx = 0.0f;
  float sy = 0.0f;
  for (unsigned int i = t; i < n; i += GROUP_SIZE) {
    sx += parsed[PARSED_HEADER + 3 * i];
    sy += parsed[PARSED_HEADER + 3 * i + 1];
  }
  const float cx = group_sum(scratch, sx) / (float)n;
  const float cy = group_sum(scratch, sy) / (float)n;
  float* x = item + ITEM_HEADER;
  for (unsigned int i = t; i < n; i += GROUP_SIZE) {
    x[i] = parsed[PARSED_HEADER + 3 * i] - cx;
    x[n + i] = parsed[PARSED_HEADER + 3 * i + 1] - cy;
    x[2 * n + i] = parsed[PARSED_HEADER + 3 * i + 2];
  }
  if (t < ITEM_HEADER) item[t] = 0.0f;
  __syncthreads();
  if (t == 0) {
    item[ITEM_COUNT] = parsed[0];
    item[ITEM_CENTROID_X] = cx;
    item[ITEM_CENTROID_Y] = cy;
  }
  __syncthreads();
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
extern "C" __global__ void microscopy_candidate_scores(unsigned int stage, unsigned int angles,
                                                       unsigned int iterations, float scale,
                                                       const float* left, const float* right,
                                                       float* comparison) {
  // __syncthreads stays out of branches that return early: every thread runs the same loop.
  __shared__ float scratch[GROUP_SIZE];
  const unsigned int g = blockIdx.x;
  const unsigned int capacity = angles > REFINE_CANDIDATES ? angles : REFINE_CANDIDATES;
  const int refine = stage == STAGE_REFINE;
  const float3 start =
      refine ? neighbour(comparison, g)
             : make_float3(2.0f * STRATA_PI_F * (float)g / (float)angles, 0.0f, 0.0f);
  const float angle = start.x;
  float tx = start.y;
  float ty = start.z;
  const unsigned int steps = refine ? 0u : iterations;
  for (unsigned int k = 0; k < steps; ++k) {
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
  if (threadIdx.x == 0) {
    float* scores = comparison + CANDIDATE_SCORES;
    scores[g] = score;
    if (!refine) {
      scores[capacity + g] = tx;
      scores[2 * capacity + g] = ty;
    }
  }
}
)";

constexpr const char* select = R"(
extern "C" __global__ void microscopy_select(unsigned int stage, unsigned int angles,
                                             float angle_step, float translation_step,
                                             float* comparison) {
  if (blockIdx.x * blockDim.x + threadIdx.x != 0) return;
  const float* scores = comparison + CANDIDATE_SCORES;
  if (stage == STAGE_REFINE) {
    unsigned int best = REFINE_CENTER;
    for (unsigned int g = 0; g < REFINE_CANDIDATES; ++g)
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
  const unsigned int capacity = angles > REFINE_CANDIDATES ? angles : REFINE_CANDIDATES;
  unsigned int best = 0;
  for (unsigned int g = 1; g < angles; ++g)
    if (scores[g] > scores[best]) best = g;
  comparison[STATE_ANGLE] = 2.0f * STRATA_PI_F * (float)best / (float)angles;
  comparison[STATE_TX] = scores[capacity + best];
  comparison[STATE_TY] = scores[2 * capacity + best];
  comparison[STATE_ANGLE_STEP] = angle_step;
  comparison[STATE_TRANSLATION_STEP] = translation_step;
  comparison[STATE_BEST] = scores[best];
}
)";

constexpr const char* finish = R"(
extern "C" __global__ void microscopy_finish(float scale, const float* left, const float* right,
                                             float* comparison) {
  __shared__ float scratch[GROUP_SIZE];
  const float angle = comparison[STATE_ANGLE];
  const float tx = comparison[STATE_TX];
  const float ty = comparison[STATE_TY];
  const float l2 = group_sum(scratch, overlap_rows(left, right, angle, tx, ty, scale, 0));
  const float bhattacharyya =
      group_sum(scratch, overlap_rows(left, right, angle, tx, ty, scale, 1));
  if (threadIdx.x == 0) {
    comparison[RESULT_RAW_L2] = l2;
    comparison[RESULT_RAW_BHATTACHARYYA] = bhattacharyya;
    comparison[RESULT_SCORE] = l2 / sqrtf(left[ITEM_SELF_L2] * right[ITEM_SELF_L2]);
    comparison[RESULT_BHATTACHARYYA] =
        bhattacharyya / sqrtf(left[ITEM_SELF_BHATTACHARYYA] * right[ITEM_SELF_BHATTACHARYYA]);
  }
}
)";

}  // namespace

std::string preprocess_cuda() {
  return std::string(prelude) + preprocess;
}

std::string candidate_scores_cuda() {
  return std::string(prelude) + neighbour_source + candidate_scores;
}

std::string select_cuda() {
  return std::string(neighbour_source) + select;
}

std::string finish_cuda() {
  return std::string(prelude) + finish;
}

}  // namespace strata::apps::microscopy
