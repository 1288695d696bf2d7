#include "lightning/coclustering_kernels.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lightning/opencl_atomics.hpp"

namespace strata::lightning {

using array::ArrayKernel;
using device::CpuBlock;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

// The CUDA C++ sources (virtual-blocks style, docs/arrays.md), equivalent to the OpenCL C ones.
namespace {

// The smoothed average of co-cluster (r, c), as opencl_average.
constexpr const char* cuda_average = R"(
__device__ float strata_average(strata::Matrix<const float> sums, strata::Matrix<const int> counts,
                                int r, int c, float gavg, float eps) {
  return (sums(r, c) + gavg * eps) / ((float)counts(r, c) + eps);
}
)";

constexpr const char* block_sums_cuda = R"(
__device__ void cocluster_block_sums(dim3 virtBlockIdx, int m, int n, int l,
                                     strata::Matrix<const float> Z, strata::Vector<const int> rows,
                                     strata::Vector<const int> cols, strata::Matrix<float> sums,
                                     strata::Matrix<int> counts) {
  const int j = virtBlockIdx.x * blockDim.x + threadIdx.x;
  const int i = virtBlockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  const int r = rows(i);
  const int c = cols(j);
  atomicAdd(&sums(r, c), Z(i, j));
  atomicAdd(&counts(r, c), 1);
}
)";

constexpr const char* row_sums_cuda = R"(
__device__ void cocluster_row_sums(dim3 virtBlockIdx, int m, int n, int l,
                                   strata::Matrix<const float> Z, strata::Vector<const int> cols,
                                   strata::Matrix<float> row_sums) {
  const int j = virtBlockIdx.x * blockDim.x + threadIdx.x;
  const int i = virtBlockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  atomicAdd(&row_sums(i, cols(j)), Z(i, j));
}
)";

constexpr const char* assign_rows_cuda = R"(
__device__ void cocluster_assign_rows(dim3 virtBlockIdx, int m, int k, int l, float gavg,
                                      float eps, strata::Matrix<const float> row_sums,
                                      strata::Matrix<const float> sums,
                                      strata::Matrix<const int> counts, strata::Vector<int> rows) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  float best = 3.402823466e+38f;  // FLT_MAX
  int label = 0;
  for (int r = 0; r < k; ++r) {
    float distance = 0.0f;
    for (int c = 0; c < l; ++c) {
      int columns = 0;
      for (int q = 0; q < k; ++q) columns += counts(q, c);
      columns /= m;
      const float y = strata_average(sums, counts, r, c, gavg, eps) + eps;
      distance += (float)columns * y - row_sums(i, c) * logf(y);
    }
    if (distance < best) {
      best = distance;
      label = r;
    }
  }
  rows(i) = label;
}
)";

constexpr const char* col_sums_cuda = R"(
__device__ void cocluster_col_sums(dim3 virtBlockIdx, int m, int n, int k,
                                   strata::Matrix<const float> Z, strata::Vector<const int> rows,
                                   strata::Matrix<float> col_sums,
                                   strata::Vector<int> row_counts) {
  const int j = virtBlockIdx.x * blockDim.x + threadIdx.x;
  const int i = virtBlockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  const int r = rows(i);
  atomicAdd(&col_sums(j, r), Z(i, j));
  if (j == 0) atomicAdd(&row_counts(r), 1);
}
)";

constexpr const char* assign_cols_cuda = R"(
__device__ void cocluster_assign_cols(dim3 virtBlockIdx, int n, int k, int l, float gavg,
                                      float eps, strata::Matrix<const float> col_sums,
                                      strata::Matrix<const float> sums,
                                      strata::Matrix<const int> counts,
                                      strata::Vector<const int> row_counts,
                                      strata::Vector<int> cols, strata::Vector<float> error) {
  const int j = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  float best = 3.402823466e+38f;  // FLT_MAX
  int label = 0;
  for (int c = 0; c < l; ++c) {
    float distance = 0.0f;
    for (int r = 0; r < k; ++r) {
      const float y = strata_average(sums, counts, r, c, gavg, eps) + eps;
      distance += (float)row_counts(r) * y - col_sums(j, r) * logf(y);
    }
    if (distance < best) {
      best = distance;
      label = c;
    }
  }
  cols(j) = label;
  atomicAdd(&error(0), best);
}
)";

}  // namespace

namespace {

void atomic_add(float& into, float value) {
  std::atomic_ref<float>(into).fetch_add(value);
}

void atomic_add(std::int32_t& into, std::int32_t value) {
  std::atomic_ref<std::int32_t>(into).fetch_add(value);
}

// The co-cluster average of row cluster r and column cluster c, as CGC computes it.
constexpr const char* opencl_average = R"(
inline float strata_average(__global const float* sums, __global const int* counts, int r, int c,
                            float gavg, float eps) {
  return (sums[r * STRATA_STRIDE_sums_0 + c * STRATA_STRIDE_sums_1] + gavg * eps) /
         ((float)counts[r * STRATA_STRIDE_counts_0 + c * STRATA_STRIDE_counts_1] + eps);
}
)";

}  // namespace

ArrayKernel cocluster_block_sums_kernel() {
  return ArrayKernel(
      KernelDefinition("cocluster_block_sums")
          .scalar<std::int32_t>("m")
          .scalar<std::int32_t>("n")
          .scalar<std::int32_t>("l")
          .array<float>("Z", ParamAccess::read, 2)
          .array<std::int32_t>("rows", ParamAccess::read)
          .array<std::int32_t>("cols", ParamAccess::read)
          .array<float>("sums", ParamAccess::read_write, 2)
          .array<std::int32_t>("counts", ParamAccess::read_write, 2)
          .cpu([](const CpuBlock& block) {
            const auto m = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto l = static_cast<std::uint64_t>(block.scalar<std::int32_t>(2));
            const auto z = block.global_array<float>(3);
            const auto rows = block.global_array<std::int32_t>(4);
            const auto cols = block.global_array<std::int32_t>(5);
            const auto sums = block.global_array<float>(6);
            const auto counts = block.global_array<std::int32_t>(7);
            for (std::uint64_t i = block.begin.y; i < block.end.y && i < m; ++i) {
              // The row's own sums per column cluster first: one atomic per cluster, not entry.
              std::vector<float> local(l, 0.0f);
              std::vector<std::int32_t> local_counts(l, 0);
              for (std::uint64_t j = block.begin.x; j < block.end.x && j < n; ++j) {
                const auto c = static_cast<std::uint64_t>(cols(j));
                local[c] += z(i, j);
                ++local_counts[c];
              }
              const auto r = static_cast<std::uint64_t>(rows(i));
              for (std::uint64_t c = 0; c < l; ++c) {
                if (local_counts[c] == 0) continue;
                atomic_add(sums(r, c), local[c]);
                atomic_add(counts(r, c), local_counts[c]);
              }
            }
          })
          .opencl(std::string(opencl_atomic_add_float) + R"(
void cocluster_block_sums(uint3 virtBlockIdx, int m, int n, int l, __global const float* Z,
                          __global const int* rows, __global const int* cols,
                          __global float* sums, __global int* counts) {
  const int j = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  const int i = virtBlockIdx.y * get_local_size(1) + get_local_id(1);
  if (i >= m || j >= n) return;
  const int r = rows[i];
  const int c = cols[j];
  strata_atomic_add_float(&sums[r * STRATA_STRIDE_sums_0 + c * STRATA_STRIDE_sums_1],
                          Z[i * STRATA_STRIDE_Z_0 + j * STRATA_STRIDE_Z_1]);
  atomic_add(&counts[r * STRATA_STRIDE_counts_0 + c * STRATA_STRIDE_counts_1], 1);
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(std::string(cuda_average) + block_sums_cuda, KernelStyle::virtual_blocks),
      "global [j, i] => read Z[i, j], read rows[i], read cols[j], reduce(+) sums[:, :], "
      "reduce(+) counts[:, :]");
}

ArrayKernel cocluster_row_sums_kernel() {
  return ArrayKernel(
      KernelDefinition("cocluster_row_sums")
          .scalar<std::int32_t>("m")
          .scalar<std::int32_t>("n")
          .scalar<std::int32_t>("l")
          .array<float>("Z", ParamAccess::read, 2)
          .array<std::int32_t>("cols", ParamAccess::read)
          .array<float>("row_sums", ParamAccess::read_write, 2)
          .cpu([](const CpuBlock& block) {
            const auto m = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto l = static_cast<std::uint64_t>(block.scalar<std::int32_t>(2));
            const auto z = block.global_array<float>(3);
            const auto cols = block.global_array<std::int32_t>(4);
            const auto row_sums = block.global_array<float>(5);
            std::vector<float> local(l);
            for (std::uint64_t i = block.begin.y; i < block.end.y && i < m; ++i) {
              std::fill(local.begin(), local.end(), 0.0f);
              for (std::uint64_t j = block.begin.x; j < block.end.x && j < n; ++j)
                local[static_cast<std::uint64_t>(cols(j))] += z(i, j);
              for (std::uint64_t c = 0; c < l; ++c)
                if (local[c] != 0.0f) atomic_add(row_sums(i, c), local[c]);
            }
          })
          .opencl(std::string(opencl_atomic_add_float) + R"(
void cocluster_row_sums(uint3 virtBlockIdx, int m, int n, int l, __global const float* Z,
                        __global const int* cols, __global float* row_sums) {
  const int j = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  const int i = virtBlockIdx.y * get_local_size(1) + get_local_id(1);
  if (i >= m || j >= n) return;
  strata_atomic_add_float(&row_sums[i * STRATA_STRIDE_row_sums_0 + cols[j] * STRATA_STRIDE_row_sums_1],
                          Z[i * STRATA_STRIDE_Z_0 + j * STRATA_STRIDE_Z_1]);
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(std::string(cuda_average) + row_sums_cuda, KernelStyle::virtual_blocks),
      "global [j, i] => read Z[i, j], read cols[j], reduce(+) row_sums[i, :]");
}

ArrayKernel cocluster_assign_rows_kernel() {
  return ArrayKernel(
      KernelDefinition("cocluster_assign_rows")
          .scalar<std::int32_t>("m")
          .scalar<std::int32_t>("k")
          .scalar<std::int32_t>("l")
          .scalar<float>("gavg")
          .scalar<float>("eps")
          .array<float>("row_sums", ParamAccess::read, 2)
          .array<float>("sums", ParamAccess::read, 2)
          .array<std::int32_t>("counts", ParamAccess::read, 2)
          .array<std::int32_t>("rows", ParamAccess::write)
          .cpu([](const CpuBlock& block) {
            const auto m = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto k = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto l = static_cast<std::uint64_t>(block.scalar<std::int32_t>(2));
            const float gavg = block.scalar<float>(3);
            const float eps = block.scalar<float>(4);
            const auto row_sums = block.global_array<float>(5);
            const auto sums = block.global_array<float>(6);
            const auto counts = block.global_array<std::int32_t>(7);
            const auto rows = block.global_array<std::int32_t>(8);
            for (std::uint64_t i = block.begin.x; i < block.end.x && i < m; ++i) {
              float best = std::numeric_limits<float>::max();
              std::int32_t label = 0;
              for (std::uint64_t r = 0; r < k; ++r) {
                float distance = 0.0f;
                for (std::uint64_t c = 0; c < l; ++c) {
                  std::int32_t columns = 0;  // of cluster c: sum over row clusters / m
                  for (std::uint64_t q = 0; q < k; ++q)
                    columns += counts(q, c);
                  columns /= static_cast<std::int32_t>(m);
                  const float y =
                      (sums(r, c) + gavg * eps) / (static_cast<float>(counts(r, c)) + eps) + eps;
                  distance += static_cast<float>(columns) * y - row_sums(i, c) * std::log(y);
                }
                if (distance < best) {
                  best = distance;
                  label = static_cast<std::int32_t>(r);
                }
              }
              rows(i) = label;
            }
          })
          .opencl(std::string(opencl_average) + R"(
void cocluster_assign_rows(uint3 virtBlockIdx, int m, int k, int l, float gavg, float eps,
                           __global const float* row_sums, __global const float* sums,
                           __global const int* counts, __global int* rows) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= m) return;
  float best = FLT_MAX;
  int label = 0;
  for (int r = 0; r < k; ++r) {
    float distance = 0.0f;
    for (int c = 0; c < l; ++c) {
      int columns = 0;
      for (int q = 0; q < k; ++q)
        columns += counts[q * STRATA_STRIDE_counts_0 + c * STRATA_STRIDE_counts_1];
      columns /= m;
      const float y = strata_average(sums, counts, r, c, gavg, eps) + eps;
      distance += (float)columns * y -
                  row_sums[i * STRATA_STRIDE_row_sums_0 + c * STRATA_STRIDE_row_sums_1] * log(y);
    }
    if (distance < best) {
      best = distance;
      label = r;
    }
  }
  rows[i] = label;
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(std::string(cuda_average) + assign_rows_cuda, KernelStyle::virtual_blocks),
      "global i => read row_sums[i, :], read sums[:, :], read counts[:, :], write rows[i]");
}

ArrayKernel cocluster_col_sums_kernel() {
  return ArrayKernel(
      KernelDefinition("cocluster_col_sums")
          .scalar<std::int32_t>("m")
          .scalar<std::int32_t>("n")
          .scalar<std::int32_t>("k")
          .array<float>("Z", ParamAccess::read, 2)
          .array<std::int32_t>("rows", ParamAccess::read)
          .array<float>("col_sums", ParamAccess::read_write, 2)
          .array<std::int32_t>("row_counts", ParamAccess::read_write)
          .cpu([](const CpuBlock& block) {
            const auto m = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto k = static_cast<std::uint64_t>(block.scalar<std::int32_t>(2));
            const auto z = block.global_array<float>(3);
            const auto rows = block.global_array<std::int32_t>(4);
            const auto col_sums = block.global_array<float>(5);
            const auto row_counts = block.global_array<std::int32_t>(6);
            std::vector<float> local(k);
            for (std::uint64_t j = block.begin.x; j < block.end.x && j < n; ++j) {
              std::fill(local.begin(), local.end(), 0.0f);
              for (std::uint64_t i = block.begin.y; i < block.end.y && i < m; ++i)
                local[static_cast<std::uint64_t>(rows(i))] += z(i, j);
              for (std::uint64_t r = 0; r < k; ++r)
                if (local[r] != 0.0f) atomic_add(col_sums(j, r), local[r]);
            }
            if (block.begin.x == 0) {  // the threads of column 0 count the rows
              for (std::uint64_t i = block.begin.y; i < block.end.y && i < m; ++i)
                atomic_add(row_counts(static_cast<std::uint64_t>(rows(i))), 1);
            }
          })
          .opencl(std::string(opencl_atomic_add_float) + R"(
void cocluster_col_sums(uint3 virtBlockIdx, int m, int n, int k, __global const float* Z,
                        __global const int* rows, __global float* col_sums,
                        __global int* row_counts) {
  const int j = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  const int i = virtBlockIdx.y * get_local_size(1) + get_local_id(1);
  if (i >= m || j >= n) return;
  const int r = rows[i];
  strata_atomic_add_float(&col_sums[j * STRATA_STRIDE_col_sums_0 + r * STRATA_STRIDE_col_sums_1],
                          Z[i * STRATA_STRIDE_Z_0 + j * STRATA_STRIDE_Z_1]);
  if (j == 0) atomic_add(&row_counts[r], 1);
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(std::string(cuda_average) + col_sums_cuda, KernelStyle::virtual_blocks),
      "global [j, i] => read Z[i, j], read rows[i], reduce(+) col_sums[j, :], "
      "reduce(+) row_counts[:]");
}

ArrayKernel cocluster_assign_cols_kernel() {
  return ArrayKernel(
      KernelDefinition("cocluster_assign_cols")
          .scalar<std::int32_t>("n")
          .scalar<std::int32_t>("k")
          .scalar<std::int32_t>("l")
          .scalar<float>("gavg")
          .scalar<float>("eps")
          .array<float>("col_sums", ParamAccess::read, 2)
          .array<float>("sums", ParamAccess::read, 2)
          .array<std::int32_t>("counts", ParamAccess::read, 2)
          .array<std::int32_t>("row_counts", ParamAccess::read)
          .array<std::int32_t>("cols", ParamAccess::write)
          .array<float>("error", ParamAccess::read_write)
          .cpu([](const CpuBlock& block) {
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto k = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto l = static_cast<std::uint64_t>(block.scalar<std::int32_t>(2));
            const float gavg = block.scalar<float>(3);
            const float eps = block.scalar<float>(4);
            const auto col_sums = block.global_array<float>(5);
            const auto sums = block.global_array<float>(6);
            const auto counts = block.global_array<std::int32_t>(7);
            const auto row_counts = block.global_array<std::int32_t>(8);
            const auto cols = block.global_array<std::int32_t>(9);
            const auto error = block.global_array<float>(10);
            float block_error = 0.0f;
            for (std::uint64_t j = block.begin.x; j < block.end.x && j < n; ++j) {
              float best = std::numeric_limits<float>::max();
              std::int32_t label = 0;
              for (std::uint64_t c = 0; c < l; ++c) {
                float distance = 0.0f;
                for (std::uint64_t r = 0; r < k; ++r) {
                  const float y =
                      (sums(r, c) + gavg * eps) / (static_cast<float>(counts(r, c)) + eps) + eps;
                  distance += static_cast<float>(row_counts(r)) * y - col_sums(j, r) * std::log(y);
                }
                if (distance < best) {
                  best = distance;
                  label = static_cast<std::int32_t>(c);
                }
              }
              cols(j) = label;
              block_error += best;
            }
            atomic_add(error(0), block_error);
          })
          .opencl(std::string(opencl_atomic_add_float) + opencl_average + R"(
void cocluster_assign_cols(uint3 virtBlockIdx, int n, int k, int l, float gavg, float eps,
                           __global const float* col_sums, __global const float* sums,
                           __global const int* counts, __global const int* row_counts,
                           __global int* cols, __global float* error) {
  const int j = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (j >= n) return;
  float best = FLT_MAX;
  int label = 0;
  for (int c = 0; c < l; ++c) {
    float distance = 0.0f;
    for (int r = 0; r < k; ++r) {
      const float y = strata_average(sums, counts, r, c, gavg, eps) + eps;
      distance += (float)row_counts[r] * y -
                  col_sums[j * STRATA_STRIDE_col_sums_0 + r * STRATA_STRIDE_col_sums_1] * log(y);
    }
    if (distance < best) {
      best = distance;
      label = c;
    }
  }
  cols[j] = label;
  strata_atomic_add_float(&error[0], best);
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(std::string(cuda_average) + assign_cols_cuda, KernelStyle::virtual_blocks),
      "global j => read col_sums[j, :], read sums[:, :], read counts[:, :], read row_counts[:], "
      "write cols[j], reduce(+) error[0]");
}

std::vector<ArrayKernel> coclustering_kernels() {
  return {cocluster_block_sums_kernel(), cocluster_row_sums_kernel(),
          cocluster_assign_rows_kernel(), cocluster_col_sums_kernel(),
          cocluster_assign_cols_kernel()};
}

}  // namespace strata::lightning
