#include "lightning/spmv_kernels.hpp"

#include <algorithm>
#include <cstdint>

namespace strata::lightning {

using device::CpuBlock;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

// The CUDA C++ sources (virtual-blocks style, docs/arrays.md), equivalent to the OpenCL C ones.
namespace {

constexpr const char* spmv_cuda = R"(
__device__ void spmv(dim3 virtBlockIdx, int n, int max_nnz, strata::Matrix<const float> values,
                     strata::Matrix<const int> columns, strata::Vector<const float> x,
                     strata::Vector<float> y) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int e = 0; e < max_nnz; ++e) sum += values(i, e) * x(columns(i, e));
  y(i) = sum;
}
)";

}  // namespace

array::ArrayKernel spmv_kernel() {
  return array::ArrayKernel(
      KernelDefinition("spmv")
          .scalar<std::int32_t>("n")
          .scalar<std::int32_t>("max_nnz")
          .array<float>("values", ParamAccess::read, 2)
          .array<std::int32_t>("columns", ParamAccess::read, 2)
          .array<float>("x", ParamAccess::read)
          .array<float>("y", ParamAccess::write)
          .cpu([](const CpuBlock& block) {
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto max_nnz = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto values = block.global_array<float>(2);
            const auto columns = block.global_array<std::int32_t>(3);
            const auto x = block.global_array<float>(4);
            const auto y = block.global_array<float>(5);
            const std::uint64_t end = std::min<std::uint64_t>(block.end.x, n);
            for (std::uint64_t i = block.begin.x; i < end; ++i) {
              const float* row_values = &values(i, 0);
              const std::int32_t* row_columns = &columns(i, 0);
              float sum = 0.0f;
              for (std::uint64_t e = 0; e < max_nnz; ++e)
                sum += row_values[e] * x(static_cast<std::uint64_t>(row_columns[e]));
              y(i) = sum;
            }
          })
          .opencl(R"(
void spmv(uint3 virtBlockIdx, int n, int max_nnz, __global const float* values,
          __global const int* columns, __global const float* x, __global float* y) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  __global const float* row_values = values + (long)i * STRATA_STRIDE_values_0;
  __global const int* row_columns = columns + (long)i * STRATA_STRIDE_columns_0;
  float sum = 0.0f;
  for (int e = 0; e < max_nnz; ++e)
    sum += row_values[e * STRATA_STRIDE_values_1] * x[row_columns[e * STRATA_STRIDE_columns_1]];
  y[i] = sum;
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(spmv_cuda, KernelStyle::virtual_blocks),
      "global i => read values[i, :], read columns[i, :], read x[:], write y[i]");
}

std::vector<array::ArrayKernel> spmv_kernels() {
  return {spmv_kernel()};
}

}  // namespace strata::lightning
