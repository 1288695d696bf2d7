#include "camera/pce_kernels.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "camera/prnu_kernels.hpp"   // reduction_group
#include "strata/device/device.hpp"  // CpuBlock::array

namespace strata::apps::camera {
namespace {

using device::CpuBlock;
using device::KernelDefinition;
using device::ParamAccess;

constexpr std::uint32_t peak_radius = peak_neighbourhood / 2;

// Whether (x, y) lies outside the square of peak_radius around (px, py), on a circular surface.
bool outside_peak(std::uint32_t x, std::uint32_t y, std::uint32_t px, std::uint32_t py,
                  std::uint32_t width, std::uint32_t height) {
  const std::uint32_t dx = x > px ? x - px : px - x, dy = y > py ? y - py : py - y;
  return std::min(dx, width - dx) > peak_radius || std::min(dy, height - dy) > peak_radius;
}

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

constexpr const char* peak_energy_source = R"(
__kernel void prnu_peak_energy(uint width, uint height, __global const float* surface,
                               __global float* result, uint at, uint search) {
  __local float best[GROUP];
  __local uint where[GROUP];
  __local float sums[GROUP];
  __local uint counts[GROUP];
  const uint t = get_local_id(0), count = width * height, searched = search ? count : 1u;
  float peak = -FLT_MAX;
  uint index = 0;
  for (uint i = t; i < searched; i += GROUP)
    if (surface[i] > peak) {
      peak = surface[i];
      index = i;
    }
  best[t] = peak;
  where[t] = index;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride && (best[t + stride] > best[t] ||
                       (best[t + stride] == best[t] && where[t + stride] < where[t]))) {
      best[t] = best[t + stride];
      where[t] = where[t + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint px = where[0] % width, py = where[0] / width;
  float energy = 0.0f;
  uint summed = 0;
  for (uint i = t; i < count; i += GROUP) {
    const uint x = i % width, y = i / width;
    const uint dx = x > px ? x - px : px - x, dy = y > py ? y - py : py - y;
    if (min(dx, width - dx) > RADIUS || min(dy, height - dy) > RADIUS) {
      energy += surface[i] * surface[i];
      ++summed;
    }
  }
  sums[t] = energy;
  counts[t] = summed;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      sums[t] += sums[t + stride];
      counts[t] += counts[t + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) {
    result[at] = best[0];
    result[at + 1] = as_float(where[0]);
    result[at + 2] = sums[0];
    result[at + 3] = as_float(counts[0]);
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

constexpr const char* peak_energy_cuda = R"(
extern "C" __global__ void prnu_peak_energy(unsigned int width, unsigned int height,
                                            const float* surface, float* result,
                                            unsigned int at, unsigned int search) {
  __shared__ float best[GROUP];
  __shared__ unsigned int where[GROUP];
  __shared__ float sums[GROUP];
  __shared__ unsigned int counts[GROUP];
  const unsigned int t = threadIdx.x, count = width * height, searched = search ? count : 1u;
  float peak = -3.402823466e+38f;
  unsigned int index = 0;
  for (unsigned int i = t; i < searched; i += GROUP)
    if (surface[i] > peak) {
      peak = surface[i];
      index = i;
    }
  best[t] = peak;
  where[t] = index;
  __syncthreads();
  for (unsigned int stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride && (best[t + stride] > best[t] ||
                       (best[t + stride] == best[t] && where[t + stride] < where[t]))) {
      best[t] = best[t + stride];
      where[t] = where[t + stride];
    }
    __syncthreads();
  }
  const unsigned int px = where[0] % width, py = where[0] / width;
  float energy = 0.0f;
  unsigned int summed = 0;
  for (unsigned int i = t; i < count; i += GROUP) {
    const unsigned int x = i % width, y = i / width;
    const unsigned int dx = x > px ? x - px : px - x, dy = y > py ? y - py : py - y;
    if (min(dx, width - dx) > RADIUS || min(dy, height - dy) > RADIUS) {
      energy += surface[i] * surface[i];
      ++summed;
    }
  }
  sums[t] = energy;
  counts[t] = summed;
  __syncthreads();
  for (unsigned int stride = GROUP / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      sums[t] += sums[t + stride];
      counts[t] += counts[t + stride];
    }
    __syncthreads();
  }
  if (t == 0) {
    result[at] = best[0];
    result[at + 1] = __uint_as_float(where[0]);
    result[at + 2] = sums[0];
    result[at + 3] = __uint_as_float(counts[0]);
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

KernelDefinition make_peak_energy() {
  return KernelDefinition("prnu_peak_energy")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .array<float>("surface", ParamAccess::read)
      .array<float>("result", ParamAccess::read_write)
      .scalar<std::uint32_t>("at")
      .scalar<std::uint32_t>("search")
      .define("GROUP", std::to_string(reduction_group))
      .define("RADIUS", std::to_string(peak_radius))
      .cpu([](const CpuBlock& block) {
        if (block.begin.x != 0) return;
        const auto width = block.scalar<std::uint32_t>(0);
        const auto height = block.scalar<std::uint32_t>(1);
        const float* surface = block.array<float>(2);
        float* result = block.array<float>(3) + block.scalar<std::uint32_t>(4);
        const std::uint32_t count = width * height;
        const std::uint32_t searched = block.scalar<std::uint32_t>(5) != 0 ? count : 1;
        std::uint32_t peak = 0;
        for (std::uint32_t i = 1; i < searched; ++i)
          if (surface[i] > surface[peak]) peak = i;
        double energy = 0.0;
        std::uint32_t summed = 0;
        for (std::uint32_t y = 0; y < height; ++y)
          for (std::uint32_t x = 0; x < width; ++x)
            if (outside_peak(x, y, peak % width, peak / width, width, height)) {
              const double v = surface[std::size_t{y} * width + x];
              energy += v * v;
              ++summed;
            }
        result[0] = surface[peak];
        result[1] = std::bit_cast<float>(peak);
        result[2] = static_cast<float>(energy);
        result[3] = std::bit_cast<float>(summed);
      })
      .opencl(peak_energy_source)
      .cuda(peak_energy_cuda);
}

}  // namespace

const KernelDefinition& cross_spectrum_kernel() {
  static const KernelDefinition kernel = make_cross_spectrum();
  return kernel;
}
const KernelDefinition& peak_energy_kernel() {
  static const KernelDefinition kernel = make_peak_energy();
  return kernel;
}

}  // namespace strata::apps::camera
