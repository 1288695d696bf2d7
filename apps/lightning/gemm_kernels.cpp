#include "lightning/gemm_kernels.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace strata::lightning {

using device::CpuBlock;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

// The CUDA C++ sources (virtual-blocks style, docs/arrays.md), equivalent to the OpenCL C ones.
namespace {

constexpr const char* gemm_cuda = R"(
__device__ void gemm(dim3 virtBlockIdx, int n, strata::Matrix<const float> A,
                     strata::Matrix<const float> B, strata::Matrix<float> C) {
  const int j = virtBlockIdx.x * blockDim.x + threadIdx.x;
  const int i = virtBlockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += A(i, k) * B(k, j);
  C(i, j) = sum;
}
)";

}  // namespace

namespace {

// The CPU kernel's tile of C (rows x columns) and its panel of k: a panel of B for one tile is
// 256 x 32 floats (32 KiB), which stays in cache while the tile's rows go over it.
constexpr std::uint64_t tile_rows = 32;
constexpr std::uint64_t tile_cols = 32;
constexpr std::uint64_t panel = 256;

void gemm_block(const CpuBlock& block) {
  const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
  const auto a = block.global_array<float>(1);
  const auto b = block.global_array<float>(2);
  const auto c = block.global_array<float>(3);
  const std::uint64_t row_end = std::min<std::uint64_t>(block.end.y, n);
  const std::uint64_t col_end = std::min<std::uint64_t>(block.end.x, n);
  for (std::uint64_t i0 = block.begin.y; i0 < row_end; i0 += tile_rows) {
    const std::uint64_t i1 = std::min(i0 + tile_rows, row_end);
    for (std::uint64_t j0 = block.begin.x; j0 < col_end; j0 += tile_cols) {
      const std::uint64_t width = std::min(j0 + tile_cols, col_end) - j0;
      std::array<std::array<float, tile_cols>, tile_rows> sums{};
      for (std::uint64_t k0 = 0; k0 < n; k0 += panel) {
        const std::uint64_t k1 = std::min(k0 + panel, n);
        for (std::uint64_t i = i0; i < i1; ++i) {
          std::array<float, tile_cols>& sum = sums[i - i0];
          for (std::uint64_t k = k0; k < k1; ++k) {
            const float a_ik = a(i, k);
            const float* b_k = &b(k, j0);
            // Groups of 8 columns of fixed length, which GCC vectorizes at -O2, then the rest.
            std::uint64_t j = 0;
            for (; j + 8 <= width; j += 8)
              for (std::uint64_t l = 0; l < 8; ++l)
                sum[j + l] += a_ik * b_k[j + l];
            for (; j < width; ++j)
              sum[j] += a_ik * b_k[j];
          }
        }
      }
      for (std::uint64_t i = i0; i < i1; ++i)
        std::copy_n(sums[i - i0].begin(), width, &c(i, j0));
    }
  }
}

}  // namespace

array::ArrayKernel gemm_kernel() {
  return array::ArrayKernel(KernelDefinition("gemm")
                                .scalar<std::int32_t>("n")
                                .array<float>("A", ParamAccess::read, 2)
                                .array<float>("B", ParamAccess::read, 2)
                                .array<float>("C", ParamAccess::write, 2)
                                .cpu(gemm_block)
                                .opencl(R"(
void gemm(uint3 virtBlockIdx, int n, __global const float* A, __global const float* B,
          __global float* C) {
  const int j = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  const int i = virtBlockIdx.y * get_local_size(1) + get_local_id(1);
  if (i >= n || j >= n) return;
  __global const float* a = A + (long)i * STRATA_STRIDE_A_0;
  __global const float* b = B + (long)j * STRATA_STRIDE_B_1;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += a[(long)k * STRATA_STRIDE_A_1] * b[(long)k * STRATA_STRIDE_B_0];
  C[(long)i * STRATA_STRIDE_C_0 + (long)j * STRATA_STRIDE_C_1] = sum;
}
)",
                                        KernelStyle::virtual_blocks)
                                .cuda(gemm_cuda, KernelStyle::virtual_blocks),
                            "global [j, i] => read A[i, :], read B[:, j], write C[i, j]");
}

std::vector<array::ArrayKernel> gemm_kernels() {
  return {gemm_kernel()};
}

}  // namespace strata::lightning
