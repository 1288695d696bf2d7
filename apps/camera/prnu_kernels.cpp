#include "camera/prnu_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "strata/device/device.hpp"  // CpuBlock::array

namespace strata::apps::camera {
namespace {

using device::CpuBlock;
using device::KernelDefinition;
using device::ParamAccess;

// The Wiener-filtered residual of one pixel from its 3x3 neighbourhood (edges replicated);
// deviations from the centre keep the variance free of cancellation.
float residual_at(const float* image, std::uint32_t width, std::uint32_t height, std::uint32_t x,
                  std::uint32_t y, float noise_variance) {
  const float centre = image[std::size_t{y} * width + x];
  float sum = 0.0f, sum_squares = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    const auto yy = static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(std::int64_t{y} + dy, 0, std::int64_t{height} - 1));
    for (int dx = -1; dx <= 1; ++dx) {
      const auto xx = static_cast<std::uint32_t>(
          std::clamp<std::int64_t>(std::int64_t{x} + dx, 0, std::int64_t{width} - 1));
      const float d = image[std::size_t{yy} * width + xx] - centre;
      sum += d;
      sum_squares += d * d;
    }
  }
  const float mean = sum / 9.0f;
  const float variance = std::max(sum_squares / 9.0f - mean * mean, 0.0f);
  return -mean * noise_variance / std::max(variance, noise_variance);
}

constexpr const char* residual_source = R"(
__kernel void prnu_residual(uint width, uint height, float noise_variance,
                       __global const float* image, __global float* pattern) {
  const uint x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const float centre = image[(size_t)y * width + x];
  float sum = 0.0f, sum_squares = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = clamp((int)y + dy, 0, (int)height - 1);
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = clamp((int)x + dx, 0, (int)width - 1);
      const float d = image[(size_t)yy * width + xx] - centre;
      sum += d;
      sum_squares += d * d;
    }
  }
  const float mean = sum / 9.0f;
  const float variance = fmax(sum_squares / 9.0f - mean * mean, 0.0f);
  pattern[(size_t)y * width + x] = -mean * noise_variance / fmax(variance, noise_variance);
}
)";

constexpr const char* zero_mean_rows_source = R"(
__kernel void prnu_zero_mean_rows(uint width, uint height, __global float* pattern) {
  __local float partial[GROUP];
  const uint row = get_group_id(0), t = get_local_id(0);
  if (row >= height) return;  // the whole group returns together
  __global float* line = pattern + (size_t)row * width;
  // GROUP is even: thread t sums the pixels of t's parity, and strides down to 2 keep the two
  // parities apart (partial[0]: even columns, partial[1]: odd ones).
  float sum = 0.0f;
  for (uint x = t; x < width; x += GROUP) sum += line[x];
  partial[t] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = GROUP / 2; stride > 1; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float mean = partial[t % 2] / (float)((width + 1 - t % 2) / 2);
  for (uint x = t; x < width; x += GROUP) line[x] -= mean;
}
)";

constexpr const char* zero_mean_columns_source = R"(
__kernel void prnu_zero_mean_columns(uint width, uint height, __global float* pattern,
                                __global float* energy) {
  const uint x = get_global_id(0);
  if (x >= width) return;
  float sum[2] = {0.0f, 0.0f};  // even rows, odd rows
  for (uint y = 0; y < height; ++y) sum[y % 2] += pattern[(size_t)y * width + x];
  const float mean[2] = {sum[0] / (float)((height + 1) / 2), sum[1] / (float)(height / 2)};
  float squares = 0.0f;
  for (uint y = 0; y < height; ++y) {
    const float v = pattern[(size_t)y * width + x] - mean[y % 2];
    pattern[(size_t)y * width + x] = v;
    squares += v * v;
  }
  energy[x] = squares;
}
)";

constexpr const char* inverse_norm_source = R"(
__kernel void prnu_inverse_norm(uint width, __global float* energy) {
  if (get_global_id(0) != 0) return;
  float total = 0.0f, carry = 0.0f;  // compensated (Kahan) summation
  for (uint x = 0; x < width; ++x) {
    const float term = energy[x] - carry;
    const float next = total + term;
    carry = (next - total) - term;
    total = next;
  }
  energy[width] = total > 0.0f ? rsqrt(total) : 0.0f;
}
)";

constexpr const char* scale_source = R"(
__kernel void prnu_scale(uint count, uint width, __global float* pattern,
                    __global const float* energy) {
  const uint i = get_global_id(0);
  if (i < count) pattern[i] *= energy[width];
}
)";

constexpr const char* correlation_source = R"(
__kernel void prnu_correlation(uint count, uint parts, __global const float* left,
                               __global const float* right, __global float* out) {
  __local float partial[GROUP];
  const uint part = get_group_id(0), t = get_local_id(0);
  const uint chunk = (count + parts - 1) / parts;
  const uint begin = min(count, part * chunk), end = min(count, begin + chunk);
  float sum = 0.0f;
  for (uint i = begin + t; i < end; i += GROUP) sum += left[i] * right[i];
  partial[t] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) out[part] = partial[0];
}
)";

// CUDA bodies: the OpenCL ones with CUDA's indices, shared memory and intrinsics.
constexpr const char* residual_cuda = R"(
extern "C" __global__ void prnu_residual(unsigned int width, unsigned int height,
                                         float noise_variance, const float* image,
                                         float* pattern) {
  const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float centre = image[(size_t)y * width + x];
  float sum = 0.0f, sum_squares = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max((int)y + dy, 0), (int)height - 1);
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = min(max((int)x + dx, 0), (int)width - 1);
      const float d = image[(size_t)yy * width + xx] - centre;
      sum += d;
      sum_squares += d * d;
    }
  }
  const float mean = sum / 9.0f;
  const float variance = fmaxf(sum_squares / 9.0f - mean * mean, 0.0f);
  pattern[(size_t)y * width + x] = -mean * noise_variance / fmaxf(variance, noise_variance);
}
)";

constexpr const char* zero_mean_rows_cuda = R"(
extern "C" __global__ void prnu_zero_mean_rows(unsigned int width, unsigned int height,
                                               float* pattern) {
  __shared__ float partial[GROUP];
  const unsigned int row = blockIdx.x, t = threadIdx.x;
  if (row >= height) return;  // the whole block returns together
  float* line = pattern + (size_t)row * width;
  // GROUP is even: thread t sums the pixels of t's parity, and strides down to 2 keep the two
  // parities apart (partial[0]: even columns, partial[1]: odd ones).
  float sum = 0.0f;
  for (unsigned int x = t; x < width; x += GROUP) sum += line[x];
  partial[t] = sum;
  __syncthreads();
  for (unsigned int stride = GROUP / 2; stride > 1; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  const float mean = partial[t % 2] / (float)((width + 1 - t % 2) / 2);
  for (unsigned int x = t; x < width; x += GROUP) line[x] -= mean;
}
)";

constexpr const char* zero_mean_columns_cuda = R"(
extern "C" __global__ void prnu_zero_mean_columns(unsigned int width, unsigned int height,
                                                  float* pattern, float* energy) {
  const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  float sum[2] = {0.0f, 0.0f};  // even rows, odd rows
  for (unsigned int y = 0; y < height; ++y) sum[y % 2] += pattern[(size_t)y * width + x];
  const float mean[2] = {sum[0] / (float)((height + 1) / 2), sum[1] / (float)(height / 2)};
  float squares = 0.0f;
  for (unsigned int y = 0; y < height; ++y) {
    const float v = pattern[(size_t)y * width + x] - mean[y % 2];
    pattern[(size_t)y * width + x] = v;
    squares += v * v;
  }
  energy[x] = squares;
}
)";

constexpr const char* inverse_norm_cuda = R"(
extern "C" __global__ void prnu_inverse_norm(unsigned int width, float* energy) {
  if (blockIdx.x * blockDim.x + threadIdx.x != 0) return;
  float total = 0.0f, carry = 0.0f;  // compensated (Kahan) summation
  for (unsigned int x = 0; x < width; ++x) {
    const float term = energy[x] - carry;
    const float next = total + term;
    carry = (next - total) - term;
    total = next;
  }
  energy[width] = total > 0.0f ? rsqrtf(total) : 0.0f;
}
)";

constexpr const char* scale_cuda = R"(
extern "C" __global__ void prnu_scale(unsigned int count, unsigned int width, float* pattern,
                                      const float* energy) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) pattern[i] *= energy[width];
}
)";

constexpr const char* correlation_cuda = R"(
extern "C" __global__ void prnu_correlation(unsigned int count, unsigned int parts,
                                            const float* left, const float* right, float* out) {
  __shared__ float partial[GROUP];
  const unsigned int part = blockIdx.x, t = threadIdx.x;
  const unsigned int chunk = (count + parts - 1) / parts;
  const unsigned int begin = min(count, part * chunk), end = min(count, begin + chunk);
  float sum = 0.0f;
  for (unsigned int i = begin + t; i < end; i += GROUP) sum += left[i] * right[i];
  partial[t] = sum;
  __syncthreads();
  for (unsigned int stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[part] = partial[0];
}
)";

KernelDefinition make_residual() {
  return KernelDefinition("prnu_residual")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .scalar<float>("noise_variance")
      .array<float>("image", ParamAccess::read)
      .array<float>("pattern", ParamAccess::write)
      .cpu([](const CpuBlock& block) {
        const auto width = block.scalar<std::uint32_t>(0);
        const auto height = block.scalar<std::uint32_t>(1);
        const auto noise_variance = block.scalar<float>(2);
        const float* image = block.array<float>(3);
        float* pattern = block.array<float>(4);
        const auto y_end = std::min<std::uint64_t>(block.end.y, height);
        const auto x_end = std::min<std::uint64_t>(block.end.x, width);
        for (auto y = static_cast<std::uint32_t>(block.begin.y); y < y_end; ++y)
          for (auto x = static_cast<std::uint32_t>(block.begin.x); x < x_end; ++x)
            pattern[std::size_t{y} * width + x] =
                residual_at(image, width, height, x, y, noise_variance);
      })
      .opencl(residual_source)
      .cuda(residual_cuda);
}

KernelDefinition make_zero_mean_rows() {
  return KernelDefinition("prnu_zero_mean_rows")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .array<float>("pattern", ParamAccess::read_write)
      .define("GROUP", std::to_string(reduction_group))
      .cpu([](const CpuBlock& block) {
        const auto width = block.scalar<std::uint32_t>(0);
        const auto height = block.scalar<std::uint32_t>(1);
        float* pattern = block.array<float>(2);
        const std::uint64_t first = block.begin.x / reduction_group;
        const std::uint64_t last =
            std::min<std::uint64_t>(height, (block.end.x + reduction_group - 1) / reduction_group);
        for (std::uint64_t row = first; row < last; ++row) {
          float* line = pattern + row * width;
          double sum[2] = {0.0, 0.0};  // even columns, odd columns
          for (std::uint32_t x = 0; x < width; ++x)
            sum[x % 2] += line[x];
          const float mean[2] = {static_cast<float>(sum[0] / ((width + 1) / 2)),
                                 static_cast<float>(sum[1] / (width / 2))};
          for (std::uint32_t x = 0; x < width; ++x)
            line[x] -= mean[x % 2];
        }
      })
      .opencl(zero_mean_rows_source)
      .cuda(zero_mean_rows_cuda);
}

KernelDefinition make_zero_mean_columns() {
  return KernelDefinition("prnu_zero_mean_columns")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .array<float>("pattern", ParamAccess::read_write)
      .array<float>("energy", ParamAccess::write)
      .cpu([](const CpuBlock& block) {
        const auto width = block.scalar<std::uint32_t>(0);
        const auto height = block.scalar<std::uint32_t>(1);
        float* pattern = block.array<float>(2);
        float* energy = block.array<float>(3);
        const std::uint64_t first = block.begin.x;
        const std::uint64_t last = std::min<std::uint64_t>(block.end.x, width);
        if (first >= last) return;
        // Row by row over this block's columns, so memory is read in order.
        // Per column and row parity (the colour filter's sub-lattices).
        const std::size_t columns = last - first;
        std::vector<double> sums(2 * columns, 0.0), squares(columns, 0.0);
        for (std::uint32_t y = 0; y < height; ++y) {
          const float* line = pattern + std::size_t{y} * width;
          for (std::uint64_t x = first; x < last; ++x)
            sums[(y % 2) * columns + (x - first)] += line[x];
        }
        std::vector<float> means(2 * columns);
        for (std::size_t k = 0; k < columns; ++k) {
          means[k] = static_cast<float>(sums[k] / ((height + 1) / 2));
          means[columns + k] = static_cast<float>(sums[columns + k] / (height / 2));
        }
        for (std::uint32_t y = 0; y < height; ++y) {
          float* line = pattern + std::size_t{y} * width;
          const float* row_means = means.data() + (y % 2) * columns;
          for (std::uint64_t x = first; x < last; ++x) {
            const float v = line[x] - row_means[x - first];
            line[x] = v;
            squares[x - first] += double{v} * v;
          }
        }
        for (std::uint64_t x = first; x < last; ++x)
          energy[x] = static_cast<float>(squares[x - first]);
      })
      .opencl(zero_mean_columns_source)
      .cuda(zero_mean_columns_cuda);
}

KernelDefinition make_inverse_norm() {
  return KernelDefinition("prnu_inverse_norm")
      .scalar<std::uint32_t>("width")
      .array<float>("energy", ParamAccess::read_write)
      .cpu([](const CpuBlock& block) {
        if (block.begin.x != 0) return;
        const auto width = block.scalar<std::uint32_t>(0);
        float* energy = block.array<float>(1);
        double total = 0.0;
        for (std::uint32_t x = 0; x < width; ++x)
          total += energy[x];
        energy[width] = total > 0.0 ? static_cast<float>(1.0 / std::sqrt(total)) : 0.0f;
      })
      .opencl(inverse_norm_source)
      .cuda(inverse_norm_cuda);
}

KernelDefinition make_scale() {
  return KernelDefinition("prnu_scale")
      .scalar<std::uint32_t>("count")
      .scalar<std::uint32_t>("width")
      .array<float>("pattern", ParamAccess::read_write)
      .array<float>("energy", ParamAccess::read)
      .cpu([](const CpuBlock& block) {
        const auto count = block.scalar<std::uint32_t>(0);
        const auto width = block.scalar<std::uint32_t>(1);
        float* pattern = block.array<float>(2);
        const float factor = block.array<float>(3)[width];
        const auto end = std::min<std::uint64_t>(block.end.x, count);
        for (std::uint64_t i = block.begin.x; i < end; ++i)
          pattern[i] *= factor;
      })
      .opencl(scale_source)
      .cuda(scale_cuda);
}

KernelDefinition make_correlation() {
  return KernelDefinition("prnu_correlation")
      .scalar<std::uint32_t>("count")
      .scalar<std::uint32_t>("parts")
      .array<float>("left", ParamAccess::read)
      .array<float>("right", ParamAccess::read)
      .array<float>("out", ParamAccess::write)
      .define("GROUP", std::to_string(reduction_group))
      .cpu([](const CpuBlock& block) {
        const auto count = block.scalar<std::uint32_t>(0);
        const auto parts = block.scalar<std::uint32_t>(1);
        const float* left = block.array<float>(2);
        const float* right = block.array<float>(3);
        float* out = block.array<float>(4);
        const std::uint64_t chunk = (std::uint64_t{count} + parts - 1) / parts;
        const std::uint64_t first = block.begin.x / reduction_group;
        const std::uint64_t last =
            std::min<std::uint64_t>(parts, (block.end.x + reduction_group - 1) / reduction_group);
        for (std::uint64_t part = first; part < last; ++part) {
          const std::uint64_t begin = std::min<std::uint64_t>(count, part * chunk);
          const std::uint64_t end = std::min<std::uint64_t>(count, begin + chunk);
          double sum = 0.0;
          for (std::uint64_t i = begin; i < end; ++i)
            sum += double{left[i]} * right[i];
          out[part] = static_cast<float>(sum);
        }
      })
      .opencl(correlation_source)
      .cuda(correlation_cuda);
}

}  // namespace

const KernelDefinition& residual_kernel() {
  static const KernelDefinition kernel = make_residual();
  return kernel;
}
const KernelDefinition& zero_mean_rows_kernel() {
  static const KernelDefinition kernel = make_zero_mean_rows();
  return kernel;
}
const KernelDefinition& zero_mean_columns_kernel() {
  static const KernelDefinition kernel = make_zero_mean_columns();
  return kernel;
}
const KernelDefinition& inverse_norm_kernel() {
  static const KernelDefinition kernel = make_inverse_norm();
  return kernel;
}
const KernelDefinition& scale_kernel() {
  static const KernelDefinition kernel = make_scale();
  return kernel;
}
const KernelDefinition& correlation_kernel() {
  static const KernelDefinition kernel = make_correlation();
  return kernel;
}

std::uint32_t reduction_groups(std::uint64_t values) {
  constexpr std::uint64_t per_group = std::uint64_t{reduction_group} * 64;
  return static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>((values + per_group - 1) / per_group, 1, 1024));
}

}  // namespace strata::apps::camera
