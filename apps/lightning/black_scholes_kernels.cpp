#include "lightning/black_scholes_kernels.hpp"

#include <cmath>
#include <cstdint>

namespace strata::lightning {

using device::CpuBlock;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

// The CUDA C++ sources (virtual-blocks style, docs/arrays.md), equivalent to the OpenCL C ones.
namespace {

constexpr const char* black_scholes_cuda = R"(
__device__ float black_scholes_cnd(float d) {
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  const float cnd = 0.39894228040143267794f * expf(-0.5f * d * d) *
                    (k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f +
                     k * (-1.821255978f + k * 1.330274429f)))));
  return d > 0.0f ? 1.0f - cnd : cnd;
}

__device__ void black_scholes(dim3 virtBlockIdx, int n, strata::Vector<const float> S,
                              strata::Vector<const float> X, strata::Vector<const float> T,
                              strata::Vector<const float> R, strata::Vector<const float> V,
                              strata::Vector<float> call, strata::Vector<float> put) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float s = S(i), x = X(i), t = T(i), r = R(i), v = V(i);
  const float sqrt_t = sqrtf(t);
  const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float cnd1 = black_scholes_cnd(d1);
  const float cnd2 = black_scholes_cnd(d2);
  const float discount = expf(-r * t);
  call(i) = s * cnd1 - x * discount * cnd2;
  put(i) = x * discount * (1.0f - cnd2) - s * (1.0f - cnd1);
}
)";

}  // namespace

namespace {

// The cumulative normal distribution as the CUDA samples compute it (Abramowitz and Stegun
// 26.2.17); the OpenCL kernel below spells out the same polynomial.
float cumulative_normal(float d) {
  constexpr float a1 = 0.31938153f;
  constexpr float a2 = -0.356563782f;
  constexpr float a3 = 1.781477937f;
  constexpr float a4 = -1.821255978f;
  constexpr float a5 = 1.330274429f;
  constexpr float rsqrt2pi = 0.39894228040143267794f;
  const float k = 1.0f / (1.0f + 0.2316419f * std::fabs(d));
  const float cnd =
      rsqrt2pi * std::exp(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0f - cnd : cnd;
}

}  // namespace

array::ArrayKernel black_scholes_kernel() {
  return array::ArrayKernel(
      KernelDefinition("black_scholes")
          .scalar<std::int32_t>("n")
          .array<float>("S", ParamAccess::read)
          .array<float>("X", ParamAccess::read)
          .array<float>("T", ParamAccess::read)
          .array<float>("R", ParamAccess::read)
          .array<float>("V", ParamAccess::read)
          .array<float>("call", ParamAccess::write)
          .array<float>("put", ParamAccess::write)
          .cpu([](const CpuBlock& block) {
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto spot = block.global_array<float>(1);
            const auto strike = block.global_array<float>(2);
            const auto time = block.global_array<float>(3);
            const auto rate = block.global_array<float>(4);
            const auto volatility = block.global_array<float>(5);
            const auto call = block.global_array<float>(6);
            const auto put = block.global_array<float>(7);
            for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
              const float s = spot(i);
              const float x = strike(i);
              const float t = time(i);
              const float r = rate(i);
              const float v = volatility(i);
              const float sqrt_t = std::sqrt(t);
              const float d1 = (std::log(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
              const float d2 = d1 - v * sqrt_t;
              const float cnd1 = cumulative_normal(d1);
              const float cnd2 = cumulative_normal(d2);
              const float discount = std::exp(-r * t);
              call(i) = s * cnd1 - x * discount * cnd2;
              put(i) = x * discount * (1.0f - cnd2) - s * (1.0f - cnd1);
            }
          })
          .opencl(R"(
inline float black_scholes_cnd(float d) {
  const float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
  const float cnd = 0.39894228040143267794f * exp(-0.5f * d * d) *
                    (k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f +
                     k * (-1.821255978f + k * 1.330274429f)))));
  return d > 0.0f ? 1.0f - cnd : cnd;
}

void black_scholes(uint3 virtBlockIdx, int n, __global const float* S, __global const float* X,
                   __global const float* T, __global const float* R, __global const float* V,
                   __global float* call, __global float* put) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  const float s = S[i], x = X[i], t = T[i], r = R[i], v = V[i];
  const float sqrt_t = sqrt(t);
  const float d1 = (log(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float cnd1 = black_scholes_cnd(d1);
  const float cnd2 = black_scholes_cnd(d2);
  const float discount = exp(-r * t);
  call[i] = s * cnd1 - x * discount * cnd2;
  put[i] = x * discount * (1.0f - cnd2) - s * (1.0f - cnd1);
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(black_scholes_cuda, KernelStyle::virtual_blocks),
      "global i => read S[i], read X[i], read T[i], read R[i], read V[i], write call[i], "
      "write put[i]");
}

std::vector<array::ArrayKernel> black_scholes_kernels() {
  return {black_scholes_kernel()};
}

}  // namespace strata::lightning
