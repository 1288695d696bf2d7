#include "lightning/kmeans_kernels.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>

#include "lightning/opencl_atomics.hpp"

namespace strata::lightning {

using device::CpuBlock;
using device::KernelDefinition;
using device::KernelStyle;
using device::ParamAccess;

// The CUDA C++ sources (virtual-blocks style, docs/arrays.md), equivalent to the OpenCL C ones.
namespace {

constexpr const char* kmeans_assign_cuda = R"(
__device__ void kmeans_assign(dim3 virtBlockIdx, int n, int k, strata::Matrix<const float> points,
                              strata::Matrix<const float> centres, strata::Vector<int> labels) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float best = 3.402823466e+38f;  // FLT_MAX
  int label = 0;
  for (int c = 0; c < k; ++c) {
    float distance = 0.0f;
    for (int f = 0; f < 4; ++f) {
      const float d = points(i, f) - centres(c, f);
      distance += d * d;
    }
    if (distance < best) {
      best = distance;
      label = c;
    }
  }
  labels(i) = label;
}
)";

// The block's sums in shared memory first, then one global atomic per centre (and feature) the
// block saw, as the C++ kernel does: per point, every thread of the device would add into the same
// 5 k addresses, one at a time (an H200 trace showed 0.8 ms for 1 M points).
constexpr const char* kmeans_accumulate_cuda = R"(
#define KMEANS_SHARED_CENTRES 256
__device__ void kmeans_accumulate(dim3 virtBlockIdx, int n, int k,
                                  strata::Matrix<const float> points,
                                  strata::Vector<const int> labels, strata::Matrix<float> sums,
                                  strata::Vector<int> counts) {
  __shared__ float block_sums[KMEANS_SHARED_CENTRES * 4];
  __shared__ int block_counts[KMEANS_SHARED_CENTRES];
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (k > KMEANS_SHARED_CENTRES) {  // the same for the whole block: no barrier is skipped
    if (i >= n) return;
    const int c = labels(i);
    for (int f = 0; f < 4; ++f) atomicAdd(&sums(c, f), points(i, f));
    atomicAdd(&counts(c), 1);
    return;
  }
  for (int j = threadIdx.x; j < k * 4; j += blockDim.x) block_sums[j] = 0.0f;
  for (int j = threadIdx.x; j < k; j += blockDim.x) block_counts[j] = 0;
  __syncthreads();
  if (i < n) {
    const int c = labels(i);
    for (int f = 0; f < 4; ++f) atomicAdd(&block_sums[c * 4 + f], points(i, f));
    atomicAdd(&block_counts[c], 1);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < k; c += blockDim.x) {
    if (block_counts[c] == 0) continue;
    for (int f = 0; f < 4; ++f) atomicAdd(&sums(c, f), block_sums[c * 4 + f]);
    atomicAdd(&counts(c), block_counts[c]);
  }
}
)";

constexpr const char* kmeans_divide_cuda = R"(
__device__ void kmeans_divide(dim3 virtBlockIdx, int k, strata::Matrix<const float> sums,
                              strata::Vector<const int> counts, strata::Matrix<float> centres) {
  const int c = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (c >= k || counts(c) == 0) return;
  for (int f = 0; f < 4; ++f) centres(c, f) = sums(c, f) / (float)counts(c);
}
)";

}  // namespace

array::ArrayKernel kmeans_assign_kernel() {
  return array::ArrayKernel(
      KernelDefinition("kmeans_assign")
          .scalar<std::int32_t>("n")
          .scalar<std::int32_t>("k")
          .array<float>("points", ParamAccess::read, 2)
          .array<float>("centres", ParamAccess::read, 2)
          .array<std::int32_t>("labels", ParamAccess::write)
          .cpu([](const CpuBlock& block) {
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto k = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto points = block.global_array<float>(2);
            const auto centres = block.global_array<float>(3);
            const auto labels = block.global_array<std::int32_t>(4);
            for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
              float best = std::numeric_limits<float>::max();
              std::int32_t label = 0;
              for (std::uint64_t c = 0; c < k; ++c) {
                float distance = 0;
                for (std::uint64_t f = 0; f < kmeans_features; ++f) {
                  const float d = points(i, f) - centres(c, f);
                  distance += d * d;
                }
                if (distance < best) {
                  best = distance;
                  label = static_cast<std::int32_t>(c);
                }
              }
              labels(i) = label;
            }
          })
          .opencl(R"(
void kmeans_assign(uint3 virtBlockIdx, int n, int k, __global const float* points,
                   __global const float* centres, __global int* labels) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  float best = FLT_MAX;
  int label = 0;
  for (int c = 0; c < k; ++c) {
    float distance = 0.0f;
    for (int f = 0; f < 4; ++f) {
      const float d = points[i * STRATA_STRIDE_points_0 + f * STRATA_STRIDE_points_1] -
                      centres[c * STRATA_STRIDE_centres_0 + f * STRATA_STRIDE_centres_1];
      distance += d * d;
    }
    if (distance < best) {
      best = distance;
      label = c;
    }
  }
  labels[i] = label;
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(kmeans_assign_cuda, KernelStyle::virtual_blocks),
      "global i => read points[i, :], read centres[:, :], write labels[i]");
}

array::ArrayKernel kmeans_accumulate_kernel() {
  return array::ArrayKernel(
      KernelDefinition("kmeans_accumulate")
          .scalar<std::int32_t>("n")
          .scalar<std::int32_t>("k")
          .array<float>("points", ParamAccess::read, 2)
          .array<std::int32_t>("labels", ParamAccess::read)
          .array<float>("sums", ParamAccess::read_write, 2)
          .array<std::int32_t>("counts", ParamAccess::read_write)
          .cpu([](const CpuBlock& block) {
            const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto k = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto points = block.global_array<float>(2);
            const auto labels = block.global_array<std::int32_t>(3);
            const auto sums = block.global_array<float>(4);
            const auto counts = block.global_array<std::int32_t>(5);
            // The block's own sums first: one atomic per centre and feature, not per point.
            constexpr std::uint64_t most = 256;
            if (k > most) return;  // refused at launch (see kmeans_app)
            std::array<float, most * kmeans_features> local{};
            std::array<std::int32_t, most> local_counts{};
            for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
              const auto c = static_cast<std::uint64_t>(labels(i));
              for (std::uint64_t f = 0; f < kmeans_features; ++f)
                local[c * kmeans_features + f] += points(i, f);
              ++local_counts[c];
            }
            for (std::uint64_t c = 0; c < k; ++c) {
              if (local_counts[c] == 0) continue;
              for (std::uint64_t f = 0; f < kmeans_features; ++f)
                std::atomic_ref<float>(sums(c, f)).fetch_add(local[c * kmeans_features + f]);
              std::atomic_ref<std::int32_t>(counts(c)).fetch_add(local_counts[c]);
            }
          })
          .opencl(std::string(opencl_atomic_add_float) + R"(
void kmeans_accumulate(uint3 virtBlockIdx, int n, int k, __global const float* points,
                       __global const int* labels, __global float* sums, __global int* counts) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  const int c = labels[i];
  for (int f = 0; f < 4; ++f)
    strata_atomic_add_float(&sums[c * STRATA_STRIDE_sums_0 + f * STRATA_STRIDE_sums_1],
                     points[i * STRATA_STRIDE_points_0 + f * STRATA_STRIDE_points_1]);
  atomic_add(&counts[c], 1);
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(kmeans_accumulate_cuda, KernelStyle::virtual_blocks),
      "global i => read points[i, :], read labels[i], reduce(+) sums[:, :], reduce(+) counts[:]");
}

array::ArrayKernel kmeans_divide_kernel() {
  return array::ArrayKernel(
      KernelDefinition("kmeans_divide")
          .scalar<std::int32_t>("k")
          .array<float>("sums", ParamAccess::read, 2)
          .array<std::int32_t>("counts", ParamAccess::read)
          .array<float>("centres", ParamAccess::read_write, 2)
          .cpu([](const CpuBlock& block) {
            const auto k = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto sums = block.global_array<float>(1);
            const auto counts = block.global_array<std::int32_t>(2);
            const auto centres = block.global_array<float>(3);
            for (std::uint64_t c = block.begin.x; c < block.end.x && c < k; ++c) {
              if (counts(c) == 0) continue;
              for (std::uint64_t f = 0; f < kmeans_features; ++f)
                centres(c, f) = sums(c, f) / static_cast<float>(counts(c));
            }
          })
          .opencl(R"(
void kmeans_divide(uint3 virtBlockIdx, int k, __global const float* sums,
                   __global const int* counts, __global float* centres) {
  const int c = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (c >= k || counts[c] == 0) return;
  for (int f = 0; f < 4; ++f)
    centres[c * STRATA_STRIDE_centres_0 + f * STRATA_STRIDE_centres_1] =
        sums[c * STRATA_STRIDE_sums_0 + f * STRATA_STRIDE_sums_1] / (float)counts[c];
}
)",
                  KernelStyle::virtual_blocks)
          .cuda(kmeans_divide_cuda, KernelStyle::virtual_blocks),
      "global c => read sums[c, :], read counts[c], readwrite centres[c, :]");
}

std::vector<array::ArrayKernel> kmeans_kernels() {
  return {kmeans_assign_kernel(), kmeans_accumulate_kernel(), kmeans_divide_kernel()};
}

}  // namespace strata::lightning
