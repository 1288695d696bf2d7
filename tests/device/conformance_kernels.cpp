#include "conformance_kernels.hpp"

#include <string>
#include <vector>

#include "strata/device/device.hpp"

namespace strata::device::testing {

KernelDefinition vector_add_kernel() {
  return KernelDefinition("vector_add")
      .scalar<std::uint32_t>("n")
      .array<float>("a", ParamAccess::read)
      .array<float>("b", ParamAccess::read)
      .array<float>("c", ParamAccess::write)
      .cpu([](const CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const float* a = block.array<float>(1);
        const float* b = block.array<float>(2);
        float* c = block.array<float>(3);
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
          c[i] = a[i] + b[i];
      })
      .opencl(R"(
__kernel void vector_add(uint n, __global const float* a, __global const float* b,
                         __global float* c) {
  const size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)")
      .cuda(R"(
extern "C" __global__ void vector_add(unsigned int n, const float* a, const float* b, float* c) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)");
}

KernelDefinition block_sum_kernel() {
  return KernelDefinition("block_sum")
      .scalar<std::uint32_t>("n")
      .array<std::uint32_t>("input", ParamAccess::read)
      .array<std::uint64_t>("partial", ParamAccess::write)
      .define("BLOCK", std::to_string(reduction_block))
      .cpu([](const CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const std::uint32_t* input = block.array<std::uint32_t>(1);
        std::uint64_t* partial = block.array<std::uint64_t>(2);
        std::uint64_t sum = 0;
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
          sum += input[i];
        partial[block.begin.x / reduction_block] = sum;
      })
      .opencl(R"(
__kernel void block_sum(uint n, __global const uint* input, __global ulong* partial) {
  __local ulong scratch[BLOCK];
  const size_t i = get_global_id(0);
  const size_t t = get_local_id(0);
  scratch[t] = i < n ? input[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride) scratch[t] += scratch[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) partial[get_group_id(0)] = scratch[0];
}
)")
      .cuda(R"(
extern "C" __global__ void block_sum(unsigned int n, const unsigned int* input,
                                     unsigned long long* partial) {
  __shared__ unsigned long long scratch[BLOCK];
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int t = threadIdx.x;
  scratch[t] = i < n ? input[i] : 0;
  __syncthreads();
  for (unsigned int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride) scratch[t] += scratch[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = scratch[0];
}
)");
}

KernelDefinition stencil_2d_kernel() {
  return KernelDefinition("stencil_2d")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .array<float>("in", ParamAccess::read, 2)
      .array<float>("out", ParamAccess::write, 2)
      .cpu([](const CpuBlock& block) {
        const auto w = block.scalar<std::uint32_t>(0);
        const auto h = block.scalar<std::uint32_t>(1);
        const float* in = block.array<float>(2);
        float* out = block.array<float>(3);
        for (std::uint64_t y = block.begin.y; y < block.end.y && y < h; ++y) {
          for (std::uint64_t x = block.begin.x; x < block.end.x && x < w; ++x) {
            const std::uint64_t i = y * w + x;
            if (x == 0 || y == 0 || x + 1 == w || y + 1 == h) {
              out[i] = in[i];
            } else {
              out[i] = (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]) / 5.0f;
            }
          }
        }
      })
      .opencl(R"(
__kernel void stencil_2d(uint w, uint h, __global const float* in, __global float* out) {
  const size_t x = get_global_id(0);
  const size_t y = get_global_id(1);
  if (x >= w || y >= h) return;
  const size_t i = y * w + x;
  if (x == 0 || y == 0 || x + 1 == w || y + 1 == h) {
    out[i] = in[i];
  } else {
    out[i] = (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]) / 5.0f;
  }
}
)")
      .cuda(R"(
extern "C" __global__ void stencil_2d(unsigned int w, unsigned int h, const float* in,
                                      float* out) {
  const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const unsigned int i = y * w + x;
  if (x == 0 || y == 0 || x + 1 == w || y + 1 == h) {
    out[i] = in[i];
  } else {
    out[i] = (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]) / 5.0f;
  }
}
)");
}

KernelDefinition matmul_kernel() {
  return KernelDefinition("matmul")
      .scalar<std::uint32_t>("n")
      .array<float>("a", ParamAccess::read, 2)
      .array<float>("b", ParamAccess::read, 2)
      .array<float>("c", ParamAccess::write, 2)
      .define("TILE", std::to_string(matmul_tile))
      .cpu([](const CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const float* a = block.array<float>(1);
        const float* b = block.array<float>(2);
        float* c = block.array<float>(3);
        // Tiled over k so a row block of b stays in cache.
        for (std::uint64_t row = block.begin.y; row < block.end.y && row < n; ++row) {
          for (std::uint64_t col = block.begin.x; col < block.end.x && col < n; ++col)
            c[row * n + col] = 0.0f;
          for (std::uint64_t k0 = 0; k0 < n; k0 += matmul_tile) {
            const std::uint64_t k1 = std::min<std::uint64_t>(n, k0 + matmul_tile);
            for (std::uint64_t k = k0; k < k1; ++k) {
              const float left = a[row * n + k];
              for (std::uint64_t col = block.begin.x; col < block.end.x && col < n; ++col)
                c[row * n + col] += left * b[k * n + col];
            }
          }
        }
      })
      .opencl(R"(
__kernel void matmul(uint n, __global const float* a, __global const float* b,
                     __global float* c) {
  __local float ta[TILE][TILE];
  __local float tb[TILE][TILE];
  const size_t col = get_global_id(0), row = get_global_id(1);
  const size_t tx = get_local_id(0), ty = get_local_id(1);
  float sum = 0.0f;
  for (uint k0 = 0; k0 < n; k0 += TILE) {
    ta[ty][tx] = (row < n && k0 + tx < n) ? a[row * n + k0 + tx] : 0.0f;
    tb[ty][tx] = (col < n && k0 + ty < n) ? b[(k0 + ty) * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < TILE; ++k) sum += ta[ty][k] * tb[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < n && col < n) c[row * n + col] = sum;
}
)")
      .cuda(R"(
extern "C" __global__ void matmul(unsigned int n, const float* a, const float* b, float* c) {
  __shared__ float ta[TILE][TILE];
  __shared__ float tb[TILE][TILE];
  const unsigned int col = blockIdx.x * TILE + threadIdx.x, row = blockIdx.y * TILE + threadIdx.y;
  const unsigned int tx = threadIdx.x, ty = threadIdx.y;
  float sum = 0.0f;
  for (unsigned int k0 = 0; k0 < n; k0 += TILE) {
    ta[ty][tx] = (row < n && k0 + tx < n) ? a[row * n + k0 + tx] : 0.0f;
    tb[ty][tx] = (col < n && k0 + ty < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();
    for (unsigned int k = 0; k < TILE; ++k) sum += ta[ty][k] * tb[k][tx];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = sum;
}
)");
}

}  // namespace strata::device::testing
