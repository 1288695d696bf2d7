#include "lightning/hotspot_kernels.hpp"

#include <cstdint>

namespace strata::lightning {

using device::CpuBlock;
using device::CpuCalls;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

// The CUDA C++ sources (virtual-blocks style, docs/arrays.md), equivalent to the OpenCL C ones.
namespace {

constexpr const char* hotspot_cuda = R"(
// CUDA has no FP_CONTRACT pragma: the _rn intrinsics are never fused into multiply-adds, so the
// temperatures round as the C++ kernel's do.
__device__ void hotspot(dim3 virtBlockIdx, int rows, int cols, float step_div_cap, float rx_1,
                        float ry_1, float rz_1, float ambient, strata::Matrix<const float> power,
                        strata::Matrix<const float> temp, strata::Matrix<float> out) {
  const int j = virtBlockIdx.x * blockDim.x + threadIdx.x;
  const int i = virtBlockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols) return;
  const int north = i == 0 ? i : i - 1;
  const int south = i + 1 < rows ? i + 1 : i;
  const int west = j == 0 ? j : j - 1;
  const int east = j + 1 < cols ? j + 1 : j;
  const float t = temp(i, j);
  const float twice = __fmul_rn(2.0f, t);
  const float vertical = __fmul_rn(__fsub_rn(__fadd_rn(temp(south, j), temp(north, j)), twice), ry_1);
  const float horizontal = __fmul_rn(__fsub_rn(__fadd_rn(temp(i, east), temp(i, west)), twice), rx_1);
  const float sink = __fmul_rn(__fsub_rn(ambient, t), rz_1);
  const float flow = __fadd_rn(__fadd_rn(__fadd_rn(power(i, j), vertical), horizontal), sink);
  out(i, j) = __fadd_rn(t, __fmul_rn(step_div_cap, flow));
}
)";

}  // namespace

HotspotConstants hotspot_constants() {
  // Rodinia's hotspot.c: the chip's physics, and a 512 x 512 grid over a 16 mm square chip.
  constexpr double max_power_density = 3.0e6;
  constexpr double precision = 0.001;
  constexpr double specific_heat = 1.75e6;
  constexpr double k_si = 100;
  constexpr double factor_chip = 0.5;
  constexpr double t_chip = 0.0005;
  constexpr double cell_height = 0.016 / 512;
  constexpr double cell_width = 0.016 / 512;
  constexpr double ambient = 80.0;
  const double cap = factor_chip * specific_heat * t_chip * cell_width * cell_height;
  const double rx = cell_width / (2.0 * k_si * t_chip * cell_height);
  const double ry = cell_height / (2.0 * k_si * t_chip * cell_width);
  const double rz = t_chip / (k_si * cell_height * cell_width);
  const double max_slope = max_power_density / (factor_chip * t_chip * specific_heat);
  const double step = precision / max_slope;
  HotspotConstants constants;
  constants.step_div_cap = static_cast<float>(step / cap);
  constants.rx_1 = static_cast<float>(1 / rx);
  constants.ry_1 = static_cast<float>(1 / ry);
  constants.rz_1 = static_cast<float>(1 / rz);
  constants.ambient = static_cast<float>(ambient);
  return constants;
}

array::ArrayKernel hotspot_kernel() {
  return array::ArrayKernel(
      KernelDefinition("hotspot")
          .scalar<std::int32_t>("rows")
          .scalar<std::int32_t>("cols")
          .scalar<float>("step_div_cap")
          .scalar<float>("rx_1")
          .scalar<float>("ry_1")
          .scalar<float>("rz_1")
          .scalar<float>("ambient")
          .array<float>("power", ParamAccess::read, 2)
          .array<float>("temp", ParamAccess::read, 2)
          .array<float>("out", ParamAccess::write, 2)
          .cpu(
              [](const CpuBlock& block) {
                const auto rows = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
                const auto cols = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
                const auto step_div_cap = block.scalar<float>(2);
                const auto rx_1 = block.scalar<float>(3);
                const auto ry_1 = block.scalar<float>(4);
                const auto rz_1 = block.scalar<float>(5);
                const auto ambient = block.scalar<float>(6);
                const auto power = block.global_array<float>(7);
                const auto temp = block.global_array<float>(8);
                const auto out = block.global_array<float>(9);
                for (std::uint64_t i = block.begin.y; i < block.end.y && i < rows; ++i) {
                  const std::uint64_t north = i == 0 ? i : i - 1;
                  const std::uint64_t south = i + 1 < rows ? i + 1 : i;
                  for (std::uint64_t j = block.begin.x; j < block.end.x && j < cols; ++j) {
                    const std::uint64_t west = j == 0 ? j : j - 1;
                    const std::uint64_t east = j + 1 < cols ? j + 1 : j;
                    const float t = temp(i, j);
                    out(i, j) =
                        t + step_div_cap *
                                (power(i, j) + (temp(south, j) + temp(north, j) - 2.0f * t) * ry_1 +
                                 (temp(i, east) + temp(i, west) - 2.0f * t) * rx_1 +
                                 (ambient - t) * rz_1);
                  }
                }
              },
              // Each cell on its own: rows of blocks as one call stream along the grid's rows.
              CpuCalls::any_range)
          .opencl(R"(
#pragma OPENCL FP_CONTRACT OFF
void hotspot(uint3 virtBlockIdx, int rows, int cols, float step_div_cap, float rx_1, float ry_1,
             float rz_1, float ambient, __global const float* power, __global const float* temp,
             __global float* out) {
  const int j = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  const int i = virtBlockIdx.y * get_local_size(1) + get_local_id(1);
  if (i >= rows || j >= cols) return;
  const int north = i == 0 ? i : i - 1;
  const int south = i + 1 < rows ? i + 1 : i;
  const int west = j == 0 ? j : j - 1;
  const int east = j + 1 < cols ? j + 1 : j;
#define T(r, c) temp[(r) * STRATA_STRIDE_temp_0 + (c) * STRATA_STRIDE_temp_1]
  const float t = T(i, j);
  out[i * STRATA_STRIDE_out_0 + j * STRATA_STRIDE_out_1] =
      t + step_div_cap * (power[i * STRATA_STRIDE_power_0 + j * STRATA_STRIDE_power_1] +
                          (T(south, j) + T(north, j) - 2.0f * t) * ry_1 +
                          (T(i, east) + T(i, west) - 2.0f * t) * rx_1 + (ambient - t) * rz_1);
#undef T
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(hotspot_cuda, KernelStyle::virtual_blocks),
      "global [j, i] => read temp[i-1:i+1, j-1:j+1], read power[i, j], write out[i, j]");
}

std::vector<array::ArrayKernel> hotspot_kernels() {
  return {hotspot_kernel()};
}

}  // namespace strata::lightning
