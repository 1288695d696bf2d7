#include "lightning/correlator_kernels.hpp"

#include <algorithm>
#include <cstdint>

namespace strata::lightning {

using device::CpuBlock;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

array::ArrayKernel correlator_kernel() {
  return array::ArrayKernel(
      KernelDefinition("correlate")
          .scalar<std::int32_t>("channels")
          .scalar<std::int32_t>("antennas")
          .scalar<std::int32_t>("samples")
          .array<float>("x", ParamAccess::read, 3)
          .array<float>("vis", ParamAccess::write, 3)
          .cpu([](const CpuBlock& block) {
            const auto channels = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto antennas = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto samples = static_cast<std::uint64_t>(block.scalar<std::int32_t>(2));
            const auto x = block.global_array<float>(3);
            const auto vis = block.global_array<float>(4);
            const std::uint64_t c_end = std::min<std::uint64_t>(block.end.z, channels);
            const std::uint64_t a_end = std::min<std::uint64_t>(block.end.y, antennas);
            for (std::uint64_t c = block.begin.z; c < c_end; ++c) {
              for (std::uint64_t a = block.begin.y; a < a_end; ++a) {
                const float* xa = &x(c, a, 0);  // a row of samples is contiguous
                const std::uint64_t b_end = std::min<std::uint64_t>(block.end.x, a + 1);
                for (std::uint64_t b = block.begin.x; b < b_end; ++b) {
                  const float* xb = &x(c, b, 0);
                  float re = 0, im = 0;
                  for (std::uint64_t t = 0; t < samples; ++t) {
                    const float ar = xa[2 * t], ai = xa[2 * t + 1];
                    const float br = xb[2 * t], bi = xb[2 * t + 1];
                    re += ar * br + ai * bi;  // x_a conj(x_b) = (ar + i ai)(br - i bi)
                    im += ai * br - ar * bi;
                  }
                  const std::uint64_t baseline = a * (a + 1) / 2 + b;
                  vis(c, baseline, 0) = re;
                  vis(c, baseline, 1) = im;
                }
              }
            }
          })
          .opencl(R"(
void correlate(uint3 virtBlockIdx, int channels, int antennas, int samples,
               __global const float* x, __global float* vis) {
  const int b = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  const int a = virtBlockIdx.y * get_local_size(1) + get_local_id(1);
  const int c = virtBlockIdx.z * get_local_size(2) + get_local_id(2);
  if (c >= channels || a >= antennas || b > a) return;
  __global const float* xa = x + (ulong)c * STRATA_STRIDE_x_0 + (ulong)a * STRATA_STRIDE_x_1;
  __global const float* xb = x + (ulong)c * STRATA_STRIDE_x_0 + (ulong)b * STRATA_STRIDE_x_1;
  float re = 0.0f, im = 0.0f;
  for (int t = 0; t < samples; ++t) {
    const float ar = xa[2 * t], ai = xa[2 * t + 1];
    const float br = xb[2 * t], bi = xb[2 * t + 1];
    re += ar * br + ai * bi;
    im += ai * br - ar * bi;
  }
  const ulong baseline = (ulong)(a * (a + 1) / 2 + b);
  const ulong out = (ulong)c * STRATA_STRIDE_vis_0 + baseline * STRATA_STRIDE_vis_1;
  vis[out] = re;
  vis[out + STRATA_STRIDE_vis_2] = im;
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(R"(
__device__ void correlate(dim3 virtBlockIdx, int channels, int antennas, int samples,
                          strata::Tensor<const float> x, strata::Tensor<float> vis) {
  const int b = virtBlockIdx.x * blockDim.x + threadIdx.x;
  const int a = virtBlockIdx.y * blockDim.y + threadIdx.y;
  const int c = virtBlockIdx.z * blockDim.z + threadIdx.z;
  if (c >= channels || a >= antennas || b > a) return;
  float re = 0.0f, im = 0.0f;
  for (int t = 0; t < samples; ++t) {
    const float ar = x(c, a, 2 * t), ai = x(c, a, 2 * t + 1);
    const float br = x(c, b, 2 * t), bi = x(c, b, 2 * t + 1);
    re += ar * br + ai * bi;
    im += ai * br - ar * bi;
  }
  const int baseline = a * (a + 1) / 2 + b;
  vis(c, baseline, 0) = re;
  vis(c, baseline, 1) = im;
}
)",
                KernelStyle::virtual_blocks),
      "global [b, a, c] => read x[c, :, :], write vis[c, :, :]");
}

std::vector<array::ArrayKernel> correlator_kernels() {
  return {correlator_kernel()};
}

}  // namespace strata::lightning
