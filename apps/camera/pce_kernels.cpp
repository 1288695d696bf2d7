#include "camera/pce_kernels.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "camera/prnu_kernels.hpp"   // reduction_group
#include "strata/device/device.hpp"  // CpuBlock::array

namespace strata::apps::camera {
namespace {

using device::CpuBlock;
using device::KernelDefinition;
using device::ParamAccess;

constexpr std::uint32_t peak_radius = peak_neighbourhood / 2;

constexpr const char* cross_spectrum_source = R"(
__kernel void prnu_cross_spectrum(uint count, __global const float* left,
                                  __global const float* right, __global float* product) {
  const uint i = get_global_id(0);
  if (i >= count) return;
  const float lr = left[2 * (size_t)i], li = left[2 * (size_t)i + 1];
  const float rr = right[2 * (size_t)i], ri = right[2 * (size_t)i + 1];
  product[2 * (size_t)i] = lr * rr + li * ri;
  product[2 * (size_t)i + 1] = li * rr - lr * ri;
}
)";

// Both kernels' work-group reduction: every thread's (value, index) and sum in, the group's
// largest value with the lowest index holding it in best[0], where[0], and the sum in sums[0].
constexpr const char* largest_and_sum_source = R"(
void largest_and_sum(__local float* best, __local uint* where, __local float* sums, float value,
                     uint index, float sum) {
  const uint t = get_local_id(0);
  best[t] = value;
  where[t] = index;
  sums[t] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      if (best[t + stride] > best[t] ||
          (best[t + stride] == best[t] && where[t + stride] < where[t])) {
        best[t] = best[t + stride];
        where[t] = where[t + stride];
      }
      sums[t] += sums[t + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
)";

// Each work-group's share of the surface (a grid-stride loop, so reads coalesce): its largest
// value with the first index holding it, and its sum of squares.
constexpr const char* surface_partials_source = R"(
__kernel void prnu_surface_partials(uint width, uint height, __global const float* surface,
                                    __global float* partials, uint groups) {
  __local float best[GROUP];
  __local uint where[GROUP];
  __local float sums[GROUP];
  const uint t = get_local_id(0), g = get_group_id(0), count = width * height;
  float peak = -FLT_MAX, energy = 0.0f;
  uint index = 0xffffffffu;
  for (uint i = g * GROUP + t; i < count; i += groups * GROUP) {
    const float v = surface[i];
    if (v > peak) {
      peak = v;
      index = i;
    }
    energy += v * v;
  }
  largest_and_sum(best, where, sums, peak, index, energy);
  if (t == 0) {
    partials[3 * g] = best[0];
    partials[3 * g + 1] = as_float(where[0]);
    partials[3 * g + 2] = sums[0];
  }
}
)";

// One work-group: the partials combined, the peak's neighbourhood (at most NEAR x NEAR values,
// fewer where a side is shorter) summed directly and taken off the total.
constexpr const char* peak_energy_source = R"(
__kernel void prnu_peak_energy(uint width, uint height, __global const float* surface,
                               __global const float* partials, uint groups,
                               __global float* result, uint at, uint search) {
  __local float best[GROUP];
  __local uint where[GROUP];
  __local float sums[GROUP];
  const uint t = get_local_id(0), count = width * height;
  float peak = -FLT_MAX, total = 0.0f;
  uint index = 0xffffffffu;
  for (uint g = t; g < groups; g += GROUP) {
    const float v = partials[3 * g];
    const uint i = as_uint(partials[3 * g + 1]);
    if (v > peak || (v == peak && i < index)) {
      peak = v;
      index = i;
    }
    total += partials[3 * g + 2];
  }
  largest_and_sum(best, where, sums, peak, index, total);
  const uint p = search && where[0] < count ? where[0] : 0u;
  total = sums[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint px = p % width, py = p / width;
  const uint nx = min(width, (uint)NEAR), ny = min(height, (uint)NEAR);
  float inner = 0.0f;
  for (uint k = t; k < nx * ny; k += GROUP) {
    const uint x = width <= NEAR ? k % nx : (px + width - RADIUS + k % nx) % width;
    const uint y = height <= NEAR ? k / nx : (py + height - RADIUS + k / nx) % height;
    const float v = surface[y * width + x];
    inner += v * v;
  }
  sums[t] = inner;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride) sums[t] += sums[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) {
    result[at] = surface[p];
    result[at + 1] = as_float(p);
    result[at + 2] = max(total - sums[0], 0.0f);
    result[at + 3] = as_float(count - nx * ny);
  }
}
)";

// CUDA bodies: the OpenCL ones with CUDA's indices, shared memory and intrinsics.
constexpr const char* cross_spectrum_cuda = R"(
extern "C" __global__ void prnu_cross_spectrum(unsigned int count, const float* left,
                                               const float* right, float* product) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float lr = left[2 * (size_t)i], li = left[2 * (size_t)i + 1];
  const float rr = right[2 * (size_t)i], ri = right[2 * (size_t)i + 1];
  product[2 * (size_t)i] = lr * rr + li * ri;
  product[2 * (size_t)i + 1] = li * rr - lr * ri;
}
)";

constexpr const char* largest_and_sum_cuda = R"(
__device__ void largest_and_sum(float* best, unsigned int* where, float* sums, float value,
                                unsigned int index, float sum) {
  const unsigned int t = threadIdx.x;
  best[t] = value;
  where[t] = index;
  sums[t] = sum;
  __syncthreads();
  for (unsigned int stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      if (best[t + stride] > best[t] ||
          (best[t + stride] == best[t] && where[t + stride] < where[t])) {
        best[t] = best[t + stride];
        where[t] = where[t + stride];
      }
      sums[t] += sums[t + stride];
    }
    __syncthreads();
  }
}
)";

constexpr const char* surface_partials_cuda = R"(
extern "C" __global__ void prnu_surface_partials(unsigned int width, unsigned int height,
                                                 const float* surface, float* partials,
                                                 unsigned int groups) {
  __shared__ float best[GROUP];
  __shared__ unsigned int where[GROUP];
  __shared__ float sums[GROUP];
  const unsigned int t = threadIdx.x, g = blockIdx.x, count = width * height;
  float peak = -3.402823466e+38f, energy = 0.0f;
  unsigned int index = 0xffffffffu;
  for (unsigned int i = g * GROUP + t; i < count; i += groups * GROUP) {
    const float v = surface[i];
    if (v > peak) {
      peak = v;
      index = i;
    }
    energy += v * v;
  }
  largest_and_sum(best, where, sums, peak, index, energy);
  if (t == 0) {
    partials[3 * g] = best[0];
    partials[3 * g + 1] = __uint_as_float(where[0]);
    partials[3 * g + 2] = sums[0];
  }
}
)";

constexpr const char* peak_energy_cuda = R"(
extern "C" __global__ void prnu_peak_energy(unsigned int width, unsigned int height,
                                            const float* surface, const float* partials,
                                            unsigned int groups, float* result,
                                            unsigned int at, unsigned int search) {
  __shared__ float best[GROUP];
  __shared__ unsigned int where[GROUP];
  __shared__ float sums[GROUP];
  const unsigned int t = threadIdx.x, count = width * height;
  float peak = -3.402823466e+38f, total = 0.0f;
  unsigned int index = 0xffffffffu;
  for (unsigned int g = t; g < groups; g += GROUP) {
    const float v = partials[3 * g];
    const unsigned int i = __float_as_uint(partials[3 * g + 1]);
    if (v > peak || (v == peak && i < index)) {
      peak = v;
      index = i;
    }
    total += partials[3 * g + 2];
  }
  largest_and_sum(best, where, sums, peak, index, total);
  const unsigned int p = search && where[0] < count ? where[0] : 0u;
  total = sums[0];
  __syncthreads();
  const unsigned int px = p % width, py = p / width;
  const unsigned int nx = min(width, (unsigned int)NEAR), ny = min(height, (unsigned int)NEAR);
  float inner = 0.0f;
  for (unsigned int k = t; k < nx * ny; k += GROUP) {
    const unsigned int x = width <= NEAR ? k % nx : (px + width - RADIUS + k % nx) % width;
    const unsigned int y = height <= NEAR ? k / nx : (py + height - RADIUS + k / nx) % height;
    const float v = surface[y * width + x];
    inner += v * v;
  }
  sums[t] = inner;
  __syncthreads();
  for (unsigned int stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride) sums[t] += sums[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    result[at] = surface[p];
    result[at + 1] = __uint_as_float(p);
    result[at + 2] = fmaxf(total - sums[0], 0.0f);
    result[at + 3] = __uint_as_float(count - nx * ny);
  }
}
)";

KernelDefinition make_cross_spectrum() {
  return KernelDefinition("prnu_cross_spectrum")
      .scalar<std::uint32_t>("count")
      .array<float>("left", ParamAccess::read)
      .array<float>("right", ParamAccess::read)
      .array<float>("product", ParamAccess::write)
      .cpu([](const CpuBlock& block) {
        const auto count = block.scalar<std::uint32_t>(0);
        const float* left = block.array<float>(1);
        const float* right = block.array<float>(2);
        float* product = block.array<float>(3);
        const auto end = std::min<std::uint64_t>(block.end.x, count);
        for (std::uint64_t i = block.begin.x; i < end; ++i) {
          const float lr = left[2 * i], li = left[2 * i + 1];
          const float rr = right[2 * i], ri = right[2 * i + 1];
          product[2 * i] = lr * rr + li * ri;
          product[2 * i + 1] = li * rr - lr * ri;
        }
      })
      .opencl(cross_spectrum_source)
      .cuda(cross_spectrum_cuda);
}

KernelDefinition make_surface_partials() {
  return KernelDefinition("prnu_surface_partials")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .array<float>("surface", ParamAccess::read)
      .array<float>("partials", ParamAccess::write)
      .scalar<std::uint32_t>("groups")
      .define("GROUP", std::to_string(reduction_group))
      .cpu([](const CpuBlock& block) {
        const std::uint64_t count =
            std::uint64_t{block.scalar<std::uint32_t>(0)} * block.scalar<std::uint32_t>(1);
        const float* surface = block.array<float>(2);
        float* partials = block.array<float>(3);
        const std::uint64_t groups = block.scalar<std::uint32_t>(4);
        // On the CPU a group takes a contiguous share (the partials' contract is only what each
        // holds, not which values).
        const std::uint64_t first = block.begin.x / reduction_group;
        const std::uint64_t last =
            std::min<std::uint64_t>(groups, (block.end.x + reduction_group - 1) / reduction_group);
        for (std::uint64_t g = first; g < last; ++g) {
          const std::uint64_t begin = count * g / groups, end = count * (g + 1) / groups;
          float peak = -std::numeric_limits<float>::max();
          std::uint32_t index = std::numeric_limits<std::uint32_t>::max();
          double energy = 0.0;
          for (std::uint64_t i = begin; i < end; ++i) {
            const float v = surface[i];
            if (v > peak) {
              peak = v;
              index = static_cast<std::uint32_t>(i);
            }
            energy += double{v} * v;
          }
          partials[3 * g] = peak;
          partials[3 * g + 1] = std::bit_cast<float>(index);
          partials[3 * g + 2] = static_cast<float>(energy);
        }
      })
      .opencl(std::string(largest_and_sum_source) + surface_partials_source)
      .cuda(std::string(largest_and_sum_cuda) + surface_partials_cuda);
}

KernelDefinition make_peak_energy() {
  return KernelDefinition("prnu_peak_energy")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .array<float>("surface", ParamAccess::read)
      .array<float>("partials", ParamAccess::read)
      .scalar<std::uint32_t>("groups")
      .array<float>("result", ParamAccess::read_write)
      .scalar<std::uint32_t>("at")
      .scalar<std::uint32_t>("search")
      .define("GROUP", std::to_string(reduction_group))
      .define("RADIUS", std::to_string(peak_radius))
      .define("NEAR", std::to_string(peak_neighbourhood))
      .cpu([](const CpuBlock& block) {
        if (block.begin.x != 0) return;
        const auto width = block.scalar<std::uint32_t>(0);
        const auto height = block.scalar<std::uint32_t>(1);
        const float* surface = block.array<float>(2);
        const float* partials = block.array<float>(3);
        const auto groups = block.scalar<std::uint32_t>(4);
        float* result = block.array<float>(5) + block.scalar<std::uint32_t>(6);
        const bool search = block.scalar<std::uint32_t>(7) != 0;
        const std::uint32_t count = width * height;
        float peak = -std::numeric_limits<float>::max();
        std::uint32_t index = std::numeric_limits<std::uint32_t>::max();
        double total = 0.0;
        for (std::uint32_t g = 0; g < groups; ++g) {
          const float v = partials[3 * g];
          const auto i = std::bit_cast<std::uint32_t>(partials[3 * g + 1]);
          if (v > peak || (v == peak && i < index)) {
            peak = v;
            index = i;
          }
          total += partials[3 * g + 2];
        }
        const std::uint32_t p = search && index < count ? index : 0;
        const std::uint32_t nx = std::min(width, peak_neighbourhood);
        const std::uint32_t ny = std::min(height, peak_neighbourhood);
        double inner = 0.0;
        for (std::uint32_t k = 0; k < nx * ny; ++k) {
          const std::uint32_t x = width <= peak_neighbourhood
                                      ? k % nx
                                      : (p % width + width - peak_radius + k % nx) % width;
          const std::uint32_t y = height <= peak_neighbourhood
                                      ? k / nx
                                      : (p / width + height - peak_radius + k / nx) % height;
          const double v = surface[std::size_t{y} * width + x];
          inner += v * v;
        }
        result[0] = surface[p];
        result[1] = std::bit_cast<float>(p);
        result[2] = static_cast<float>(std::max(total - inner, 0.0));
        result[3] = std::bit_cast<float>(count - nx * ny);
      })
      .opencl(std::string(largest_and_sum_source) + peak_energy_source)
      .cuda(std::string(largest_and_sum_cuda) + peak_energy_cuda);
}

}  // namespace

const KernelDefinition& cross_spectrum_kernel() {
  static const KernelDefinition kernel = make_cross_spectrum();
  return kernel;
}
const KernelDefinition& surface_partials_kernel() {
  static const KernelDefinition kernel = make_surface_partials();
  return kernel;
}
const KernelDefinition& peak_energy_kernel() {
  static const KernelDefinition kernel = make_peak_energy();
  return kernel;
}

}  // namespace strata::apps::camera
