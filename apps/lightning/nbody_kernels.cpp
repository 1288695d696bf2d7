#include "lightning/nbody_kernels.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace strata::lightning {

using device::CpuBlock;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

// The CUDA C++ sources (virtual-blocks style, docs/arrays.md), equivalent to the OpenCL C ones.
namespace {

constexpr const char* nbody_cuda = R"(
// CUDA has no FP_CONTRACT pragma: the _rn intrinsics are never fused into multiply-adds and
// round the square root and the division correctly, as the C++ kernel does.
__device__ void nbody(dim3 virtBlockIdx, int n, strata::Matrix<const float> pos,
                      strata::Matrix<float> vel, strata::Matrix<float> next) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = pos(i, 0), yi = pos(i, 1), zi = pos(i, 2);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; ++j) {
    const float dx = __fsub_rn(pos(j, 0), xi);
    const float dy = __fsub_rn(pos(j, 1), yi);
    const float dz = __fsub_rn(pos(j, 2), zi);
    const float d2 = __fadd_rn(__fadd_rn(__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)),
                                         __fmul_rn(dz, dz)),
                               NBODY_SOFTENING_SQUARED);
    const float inv = __fdiv_rn(1.0f, __fsqrt_rn(d2));
    const float s = __fmul_rn(pos(j, 3), __fmul_rn(__fmul_rn(inv, inv), inv));
    ax = __fadd_rn(ax, __fmul_rn(dx, s));
    ay = __fadd_rn(ay, __fmul_rn(dy, s));
    az = __fadd_rn(az, __fmul_rn(dz, s));
  }
  const float vx = __fadd_rn(vel(i, 0), __fmul_rn(ax, NBODY_TIME_STEP));
  const float vy = __fadd_rn(vel(i, 1), __fmul_rn(ay, NBODY_TIME_STEP));
  const float vz = __fadd_rn(vel(i, 2), __fmul_rn(az, NBODY_TIME_STEP));
  vel(i, 0) = vx;
  vel(i, 1) = vy;
  vel(i, 2) = vz;
  next(i, 0) = __fadd_rn(xi, __fmul_rn(vx, NBODY_TIME_STEP));
  next(i, 1) = __fadd_rn(yi, __fmul_rn(vy, NBODY_TIME_STEP));
  next(i, 2) = __fadd_rn(zi, __fmul_rn(vz, NBODY_TIME_STEP));
  next(i, 3) = pos(i, 3);
}
)";

}  // namespace

array::ArrayKernel nbody_kernel() {
  return array::ArrayKernel(
      KernelDefinition("nbody")
          .scalar<std::int32_t>("n")
          .array<float>("pos", ParamAccess::read, 2)
          .array<float>("vel", ParamAccess::read_write, 2)
          .array<float>("next", ParamAccess::write, 2)
          .define("NBODY_SOFTENING_SQUARED", std::to_string(nbody_softening_squared) + "f")
          .define("NBODY_TIME_STEP", std::to_string(nbody_time_step) + "f")
          .cpu([](const CpuBlock& block) {
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto pos = block.global_array<float>(1);
            const auto vel = block.global_array<float>(2);
            const auto next = block.global_array<float>(3);
            for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
              const float xi = pos(i, 0), yi = pos(i, 1), zi = pos(i, 2);
              float ax = 0, ay = 0, az = 0;
              for (std::uint64_t j = 0; j < n; ++j) {
                const float dx = pos(j, 0) - xi;
                const float dy = pos(j, 1) - yi;
                const float dz = pos(j, 2) - zi;
                const float d2 = dx * dx + dy * dy + dz * dz + nbody_softening_squared;
                const float inv = 1.0f / std::sqrt(d2);
                const float s = pos(j, 3) * (inv * inv * inv);
                ax += dx * s;
                ay += dy * s;
                az += dz * s;
              }
              const float vx = vel(i, 0) + ax * nbody_time_step;
              const float vy = vel(i, 1) + ay * nbody_time_step;
              const float vz = vel(i, 2) + az * nbody_time_step;
              vel(i, 0) = vx;
              vel(i, 1) = vy;
              vel(i, 2) = vz;
              next(i, 0) = xi + vx * nbody_time_step;
              next(i, 1) = yi + vy * nbody_time_step;
              next(i, 2) = zi + vz * nbody_time_step;
              next(i, 3) = pos(i, 3);
            }
          })
          .opencl(R"(
#pragma OPENCL FP_CONTRACT OFF
void nbody(uint3 virtBlockIdx, int n, __global const float* pos, __global float* vel,
           __global float* next) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
#define P(r, c) pos[(r) * STRATA_STRIDE_pos_0 + (c) * STRATA_STRIDE_pos_1]
#define V(r, c) vel[(r) * STRATA_STRIDE_vel_0 + (c) * STRATA_STRIDE_vel_1]
#define NEXT(r, c) next[(r) * STRATA_STRIDE_next_0 + (c) * STRATA_STRIDE_next_1]
  const float xi = P(i, 0), yi = P(i, 1), zi = P(i, 2);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; ++j) {
    const float dx = P(j, 0) - xi;
    const float dy = P(j, 1) - yi;
    const float dz = P(j, 2) - zi;
    const float d2 = dx * dx + dy * dy + dz * dz + NBODY_SOFTENING_SQUARED;
    const float inv = 1.0f / sqrt(d2);
    const float s = P(j, 3) * (inv * inv * inv);
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  const float vx = V(i, 0) + ax * NBODY_TIME_STEP;
  const float vy = V(i, 1) + ay * NBODY_TIME_STEP;
  const float vz = V(i, 2) + az * NBODY_TIME_STEP;
  V(i, 0) = vx;
  V(i, 1) = vy;
  V(i, 2) = vz;
  NEXT(i, 0) = xi + vx * NBODY_TIME_STEP;
  NEXT(i, 1) = yi + vy * NBODY_TIME_STEP;
  NEXT(i, 2) = zi + vz * NBODY_TIME_STEP;
  NEXT(i, 3) = P(i, 3);
#undef P
#undef V
#undef NEXT
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(nbody_cuda, KernelStyle::virtual_blocks),
      "global i => read pos[:, :], readwrite vel[i, :], write next[i, :]");
}

std::vector<array::ArrayKernel> nbody_kernels() {
  return {nbody_kernel()};
}

}  // namespace strata::lightning
