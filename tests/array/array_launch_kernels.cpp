// The kernels of the distributed-launch tests, each with a C++, an OpenCL C and (but for the
// CPU-only `hold`) a CUDA implementation in the lightning paper's virtual-blocks style.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "array_launch_support.hpp"

namespace strata::array::testing {

ArrayKernel stencil_kernel() {
  return ArrayKernel(device::KernelDefinition("stencil")
                         .scalar<std::int32_t>("n")
                         .array<float>("output", device::ParamAccess::write)
                         .array<float>("input", device::ParamAccess::read)
                         .cpu([](const device::CpuBlock& block) {
                           const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
                           const auto output = block.global_array<float>(1);
                           const auto input = block.global_array<float>(2);
                           for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
                             const float left = i >= 1 ? input(i - 1) : 0.0f;
                             const float right = i + 1 < n ? input(i + 1) : 0.0f;
                             output(i) = (left + input(i) + right) / 3.0f;
                           }
                         })
                         .opencl(R"(
void stencil(uint3 virtBlockIdx, int n, __global float* output, __global const float* input) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  const float left = i - 1 >= 0 ? input[i - 1] : 0.0f;
  const float mid = input[i];
  const float right = i + 1 < n ? input[i + 1] : 0.0f;
  output[i] = (left + mid + right) / 3.0f;
}
)",
                                 device::KernelStyle::virtual_blocks)
                         .cuda(R"(
__device__ void stencil(dim3 virtBlockIdx, int n, strata::Vector<float> output,
                        strata::Vector<const float> input) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float left = i - 1 >= 0 ? input(i - 1) : 0.0f;
  const float mid = input(i);
  const float right = i + 1 < n ? input(i + 1) : 0.0f;
  output(i) = (left + mid + right) / 3.0f;
}
)",
                               device::KernelStyle::virtual_blocks),
                     "global i => write output[i], read input[i-1:i+1]");
}

ArrayKernel matmul_kernel() {
  return ArrayKernel(device::KernelDefinition("matmul")
                         .scalar<std::int32_t>("n")
                         .array<float>("C", device::ParamAccess::write, 2)
                         .array<float>("A", device::ParamAccess::read, 2)
                         .array<float>("B", device::ParamAccess::read, 2)
                         .cpu([](const device::CpuBlock& block) {
                           const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
                           const auto c = block.global_array<float>(1);
                           const auto a = block.global_array<float>(2);
                           const auto b = block.global_array<float>(3);
                           for (std::uint64_t i = block.begin.y; i < block.end.y && i < n; ++i) {
                             for (std::uint64_t j = block.begin.x; j < block.end.x && j < n; ++j) {
                               float sum = 0;
                               for (std::uint64_t k = 0; k < n; ++k)
                                 sum += a(i, k) * b(k, j);
                               c(i, j) = sum;
                             }
                           }
                         })
                         .opencl(R"(
void matmul(uint3 virtBlockIdx, int n, __global float* C, __global const float* A,
            __global const float* B) {
  const int j = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  const int i = virtBlockIdx.y * get_local_size(1) + get_local_id(1);
  if (i >= n || j >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += A[i * STRATA_STRIDE_A_0 + k * STRATA_STRIDE_A_1] *
           B[k * STRATA_STRIDE_B_0 + j * STRATA_STRIDE_B_1];
  C[i * STRATA_STRIDE_C_0 + j * STRATA_STRIDE_C_1] = sum;
}
)",
                                 device::KernelStyle::virtual_blocks)
                         .cuda(R"(
__device__ void matmul(dim3 virtBlockIdx, int n, strata::Matrix<float> C,
                       strata::Matrix<const float> A, strata::Matrix<const float> B) {
  const int j = virtBlockIdx.x * blockDim.x + threadIdx.x;
  const int i = virtBlockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += A(i, k) * B(k, j);
  C(i, j) = sum;
}
)",
                               device::KernelStyle::virtual_blocks),
                     "global [j, i] => write C[i, j], read A[i, :], read B[:, j]");
}

ArrayKernel scale_kernel() {
  return ArrayKernel(device::KernelDefinition("scale")
                         .scalar<std::int32_t>("n")
                         .scalar<float>("a")
                         .array<float>("x", device::ParamAccess::read_write)
                         .cpu([](const device::CpuBlock& block) {
                           const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
                           const float a = block.scalar<float>(1);
                           const auto x = block.global_array<float>(2);
                           for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
                             x(i) = a * x(i) + static_cast<float>(i);
                         })
                         .opencl(R"(
void scale(uint3 virtBlockIdx, int n, float a, __global float* x) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i < n) x[i] = a * x[i] + (float)i;
}
)",
                                 device::KernelStyle::virtual_blocks)
                         .cuda(R"(
__device__ void scale(dim3 virtBlockIdx, int n, float a, strata::Vector<float> x) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x(i) = a * x(i) + (float)i;
}
)",
                               device::KernelStyle::virtual_blocks),
                     "global i => readwrite x[i]");
}

namespace {

void atomic_max(std::int32_t& into, std::int32_t value) {
  std::atomic_ref<std::int32_t> target(into);
  std::int32_t seen = target.load();
  while (seen < value && !target.compare_exchange_weak(seen, value)) {
  }
}

}  // namespace

ArrayKernel column_sums_kernel() {
  return ArrayKernel(
      device::KernelDefinition("column_sums")
          .scalar<std::int32_t>("rows")
          .scalar<std::int32_t>("cols")
          .array<std::int32_t>("A", device::ParamAccess::read, 2)
          .array<std::int32_t>("sums", device::ParamAccess::read_write)
          .array<std::int32_t>("peaks", device::ParamAccess::read_write)
          .cpu([](const device::CpuBlock& block) {
            const auto rows = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
            const auto cols = static_cast<std::uint64_t>(block.scalar<std::int32_t>(1));
            const auto a = block.global_array<std::int32_t>(2);
            const auto sums = block.global_array<std::int32_t>(3);
            const auto peaks = block.global_array<std::int32_t>(4);
            for (std::uint64_t i = block.begin.y; i < block.end.y && i < rows; ++i) {
              for (std::uint64_t j = block.begin.x; j < block.end.x && j < cols; ++j) {
                std::atomic_ref<std::int32_t>(sums(j)).fetch_add(a(i, j));
                atomic_max(peaks(i), a(i, j));
              }
            }
          })
          .opencl(R"(
void column_sums(uint3 virtBlockIdx, int rows, int cols, __global const int* A,
                 __global int* sums, __global int* peaks) {
  const int j = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  const int i = virtBlockIdx.y * get_local_size(1) + get_local_id(1);
  if (i >= rows || j >= cols) return;
  const int value = A[i * STRATA_STRIDE_A_0 + j * STRATA_STRIDE_A_1];
  atomic_add(&sums[j], value);
  atomic_max(&peaks[i], value);
}
)",
                  device::KernelStyle::virtual_blocks)
          .cuda(R"(
__device__ void column_sums(dim3 virtBlockIdx, int rows, int cols, strata::Matrix<const int> A,
                            strata::Vector<int> sums, strata::Vector<int> peaks) {
  const int j = virtBlockIdx.x * blockDim.x + threadIdx.x;
  const int i = virtBlockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols) return;
  const int value = A(i, j);
  atomicAdd(&sums(j), value);
  atomicMax(&peaks(i), value);
}
)",
                device::KernelStyle::virtual_blocks),
      "global [j, i] => read A[i, j], reduce(+) sums[j], reduce(max) peaks[i]");
}

ArrayKernel spread_kernel() {
  return ArrayKernel(device::KernelDefinition("spread")
                         .scalar<std::int32_t>("n")
                         .array<std::int32_t>("x", device::ParamAccess::read)
                         .array<std::int32_t>("y", device::ParamAccess::read_write)
                         .cpu([](const device::CpuBlock& block) {
                           const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
                           const auto x = block.global_array<std::int32_t>(1);
                           const auto y = block.global_array<std::int32_t>(2);
                           for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
                             for (std::uint64_t k = i == 0 ? 0 : i - 1; k <= i + 1 && k < n; ++k)
                               std::atomic_ref<std::int32_t>(y(k)).fetch_add(x(i));
                           }
                         })
                         .opencl(R"(
void spread(uint3 virtBlockIdx, int n, __global const int* x, __global int* y) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  for (int k = i - 1; k <= i + 1; ++k)
    if (k >= 0 && k < n) atomic_add(&y[k], x[i]);
}
)",
                                 device::KernelStyle::virtual_blocks)
                         .cuda(R"(
__device__ void spread(dim3 virtBlockIdx, int n, strata::Vector<const int> x,
                       strata::Vector<int> y) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = i - 1; k <= i + 1; ++k)
    if (k >= 0 && k < n) atomicAdd(&y(k), x(i));
}
)",
                               device::KernelStyle::virtual_blocks),
                     "global i => read x[i], reduce(+) y[i-1:i+1]");
}

ArrayKernel tally_kernel() {
  return ArrayKernel(device::KernelDefinition("tally")
                         .scalar<std::int32_t>("n")
                         .scalar<std::int32_t>("bins")
                         .array<std::int32_t>("x", device::ParamAccess::read)
                         .array<std::int32_t>("totals", device::ParamAccess::read_write)
                         .cpu([](const device::CpuBlock& block) {
                           const auto n = static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
                           const auto bins = block.scalar<std::int32_t>(1);
                           const auto x = block.global_array<std::int32_t>(2);
                           const auto totals = block.global_array<std::int32_t>(3);
                           for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
                             totals(static_cast<std::uint64_t>(x(i) % bins)) += x(i);
                         })
                         .opencl(R"(
void tally(uint3 virtBlockIdx, int n, int bins, __global const int* x, __global int* totals) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i < n) atomic_add(&totals[x[i] % bins], x[i]);
}
)",
                                 device::KernelStyle::virtual_blocks)
                         .cuda(R"(
__device__ void tally(dim3 virtBlockIdx, int n, int bins, strata::Vector<const int> x,
                      strata::Vector<int> totals) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&totals(x(i) % bins), x(i));
}
)",
                               device::KernelStyle::virtual_blocks),
                     "global i => read x[i], reduce(+) totals[:]");
}

std::atomic<bool> hold_released{false};

ArrayKernel hold_kernel() {
  return ArrayKernel(device::KernelDefinition("hold")
                         .array<float>("x", device::ParamAccess::read_write)
                         .cpu([](const device::CpuBlock& block) {
                           const auto until =
                               std::chrono::steady_clock::now() + std::chrono::seconds(20);
                           while (!hold_released.load() && std::chrono::steady_clock::now() < until)
                             std::this_thread::sleep_for(std::chrono::milliseconds(1));
                           const auto x = block.global_array<float>(0);
                           for (std::uint64_t i = block.begin.x; i < block.end.x; ++i)
                             x(i) += 1.0f;
                         }),
                     "global i => readwrite x[i]");
}

ArrayKernel negate_on_cpu_kernel() {
  return ArrayKernel(device::KernelDefinition("negate_on_cpu")
                         .array<std::int32_t>("x", device::ParamAccess::read_write)
                         .cpu([](const device::CpuBlock& block) {
                           const auto x = block.global_array<std::int32_t>(0);
                           for (std::uint64_t i = block.begin.x; i < block.end.x; ++i)
                             x(i) = -x(i);
                         }),
                     "global i => readwrite x[i]");
}

std::vector<ArrayKernel> all_kernels() {
  return {stencil_kernel(), matmul_kernel(), scale_kernel(), column_sums_kernel(),
          spread_kernel(),  tally_kernel(),  hold_kernel(),  negate_on_cpu_kernel()};
}

}  // namespace strata::array::testing
