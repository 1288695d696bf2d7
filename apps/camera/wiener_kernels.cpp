#include "camera/wiener_kernels.hpp"

#include <algorithm>
#include <limits>

#include "strata/device/device.hpp"  // CpuBlock::array

namespace strata::apps::camera {
namespace {

using device::CpuBlock;
using device::KernelDefinition;
using device::ParamAccess;

// |F|^2 / n of the full spectrum's frequency (u, c), read from the half spectrum (its mirror
// (-u, -c) where c is past the half); 0 outside the spectrum.
float power_at(const float* power, std::int64_t width, std::int64_t height, std::int64_t u,
               std::int64_t c) {
  if (u < 0 || u >= height || c < 0 || c >= width) return 0.0f;
  const std::int64_t half = width / 2 + 1;
  if (c < half) return power[u * half + c];
  return power[((height - u) % height) * half + (width - c)];
}

// The smallest mean power over the windows around (u, v), growing one square ring at a time.
float local_power(const float* power, std::int64_t width, std::int64_t height, std::int64_t u,
                  std::int64_t v) {
  float sum = power_at(power, width, height, u, v);
  float smallest = std::numeric_limits<float>::max();
  std::int64_t radius = 0;
  for (const int side : wiener_windows) {
    for (++radius; radius <= side / 2; ++radius) {
      for (std::int64_t d = -radius; d <= radius; ++d) {
        sum += power_at(power, width, height, u - radius, v + d);
        sum += power_at(power, width, height, u + radius, v + d);
      }
      for (std::int64_t d = -radius + 1; d <= radius - 1; ++d) {
        sum += power_at(power, width, height, u + d, v - radius);
        sum += power_at(power, width, height, u + d, v + radius);
      }
    }
    --radius;
    smallest = std::min(smallest, sum / static_cast<float>(side * side));
  }
  return smallest;
}

constexpr const char* power_source = R"(
__kernel void prnu_spectrum_power(uint width, uint height, __global const float* spectrum,
                                  __global float* power) {
  const uint v = get_global_id(0), u = get_global_id(1), columns = width / 2 + 1;
  if (v >= columns || u >= height) return;
  const size_t i = (size_t)u * columns + v;
  const float re = spectrum[2 * i], im = spectrum[2 * i + 1];
  power[i] = (re * re + im * im) / ((float)width * (float)height);
}
)";

constexpr const char* wiener_scale_source = R"(
float power_at(__global const float* power, long width, long height, long u, long c) {
  if (u < 0 || u >= height || c < 0 || c >= width) return 0.0f;
  const long columns = width / 2 + 1;
  if (c < columns) return power[u * columns + c];
  return power[((height - u) % height) * columns + (width - c)];
}

__kernel void prnu_wiener_scale(uint width, uint height, __global float* spectrum,
                                __global const float* power, __global const float* energy) {
  const uint v = get_global_id(0), u = get_global_id(1), columns = width / 2 + 1;
  if (v >= columns || u >= height) return;
  const long w = width, h = height;
  const int sides[4] = {3, 5, 7, 9};
  float sum = power_at(power, w, h, u, v);
  float smallest = FLT_MAX;
  long radius = 0;
  for (int s = 0; s < 4; ++s) {
    for (++radius; radius <= sides[s] / 2; ++radius) {
      for (long d = -radius; d <= radius; ++d) {
        sum += power_at(power, w, h, (long)u - radius, (long)v + d);
        sum += power_at(power, w, h, (long)u + radius, (long)v + d);
      }
      for (long d = -radius + 1; d <= radius - 1; ++d) {
        sum += power_at(power, w, h, (long)u + d, (long)v - radius);
        sum += power_at(power, w, h, (long)u + d, (long)v + radius);
      }
    }
    --radius;
    smallest = fmin(smallest, sum / (float)(sides[s] * sides[s]));
  }
  const float inverse_norm = energy[width];
  const float variance =
      inverse_norm > 0.0f ? 1.0f / (inverse_norm * inverse_norm * (float)width * (float)height)
                          : 0.0f;
  const float scale = smallest > variance ? variance / smallest : 1.0f;
  const size_t i = (size_t)u * columns + v;
  spectrum[2 * i] *= scale;
  spectrum[2 * i + 1] *= scale;
}
)";

// CUDA bodies: the OpenCL ones with CUDA's indices.
constexpr const char* power_cuda = R"(
extern "C" __global__ void prnu_spectrum_power(unsigned int width, unsigned int height,
                                               const float* spectrum, float* power) {
  const unsigned int v = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int u = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned int columns = width / 2 + 1;
  if (v >= columns || u >= height) return;
  const size_t i = (size_t)u * columns + v;
  const float re = spectrum[2 * i], im = spectrum[2 * i + 1];
  power[i] = (re * re + im * im) / ((float)width * (float)height);
}
)";

constexpr const char* wiener_scale_cuda = R"(
__device__ float power_at(const float* power, long long width, long long height, long long u,
                          long long c) {
  if (u < 0 || u >= height || c < 0 || c >= width) return 0.0f;
  const long long columns = width / 2 + 1;
  if (c < columns) return power[u * columns + c];
  return power[((height - u) % height) * columns + (width - c)];
}

extern "C" __global__ void prnu_wiener_scale(unsigned int width, unsigned int height,
                                             float* spectrum, const float* power,
                                             const float* energy) {
  const unsigned int v = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int u = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned int columns = width / 2 + 1;
  if (v >= columns || u >= height) return;
  const long long w = width, h = height;
  const int sides[4] = {3, 5, 7, 9};
  float sum = power_at(power, w, h, u, v);
  float smallest = 3.402823466e+38f;
  long long radius = 0;
  for (int s = 0; s < 4; ++s) {
    for (++radius; radius <= sides[s] / 2; ++radius) {
      for (long long d = -radius; d <= radius; ++d) {
        sum += power_at(power, w, h, (long long)u - radius, (long long)v + d);
        sum += power_at(power, w, h, (long long)u + radius, (long long)v + d);
      }
      for (long long d = -radius + 1; d <= radius - 1; ++d) {
        sum += power_at(power, w, h, (long long)u + d, (long long)v - radius);
        sum += power_at(power, w, h, (long long)u + d, (long long)v + radius);
      }
    }
    --radius;
    smallest = fminf(smallest, sum / (float)(sides[s] * sides[s]));
  }
  const float inverse_norm = energy[width];
  const float variance =
      inverse_norm > 0.0f ? 1.0f / (inverse_norm * inverse_norm * (float)width * (float)height)
                          : 0.0f;
  const float scale = smallest > variance ? variance / smallest : 1.0f;
  const size_t i = (size_t)u * columns + v;
  spectrum[2 * i] *= scale;
  spectrum[2 * i + 1] *= scale;
}
)";

KernelDefinition make_power() {
  return KernelDefinition("prnu_spectrum_power")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .array<float>("spectrum", ParamAccess::read)
      .array<float>("power", ParamAccess::write)
      .cpu([](const CpuBlock& block) {
        const auto width = block.scalar<std::uint32_t>(0);
        const auto height = block.scalar<std::uint32_t>(1);
        const float* spectrum = block.array<float>(2);
        float* power = block.array<float>(3);
        const std::uint64_t half = width / 2 + 1;
        const float n = static_cast<float>(width) * static_cast<float>(height);
        for (auto u = block.begin.y; u < std::min<std::uint64_t>(block.end.y, height); ++u)
          for (auto v = block.begin.x; v < std::min(block.end.x, half); ++v) {
            const std::uint64_t i = u * half + v;
            const float re = spectrum[2 * i], im = spectrum[2 * i + 1];
            power[i] = (re * re + im * im) / n;
          }
      })
      .opencl(power_source)
      .cuda(power_cuda);
}

KernelDefinition make_wiener_scale() {
  return KernelDefinition("prnu_wiener_scale")
      .scalar<std::uint32_t>("width")
      .scalar<std::uint32_t>("height")
      .array<float>("spectrum", ParamAccess::read_write)
      .array<float>("power", ParamAccess::read)
      .array<float>("energy", ParamAccess::read)
      .cpu([](const CpuBlock& block) {
        const auto width = block.scalar<std::uint32_t>(0);
        const auto height = block.scalar<std::uint32_t>(1);
        float* spectrum = block.array<float>(2);
        const float* power = block.array<float>(3);
        const float inverse_norm = block.array<float>(4)[width];
        const float n = static_cast<float>(width) * static_cast<float>(height);
        const float variance =
            inverse_norm > 0.0f ? 1.0f / (inverse_norm * inverse_norm * n) : 0.0f;
        const std::uint64_t half = width / 2 + 1;
        for (auto u = block.begin.y; u < std::min<std::uint64_t>(block.end.y, height); ++u)
          for (auto v = block.begin.x; v < std::min(block.end.x, half); ++v) {
            const float local = local_power(power, width, height, static_cast<std::int64_t>(u),
                                            static_cast<std::int64_t>(v));
            const float scale = local > variance ? variance / local : 1.0f;
            spectrum[2 * (u * half + v)] *= scale;
            spectrum[2 * (u * half + v) + 1] *= scale;
          }
      })
      .opencl(wiener_scale_source)
      .cuda(wiener_scale_cuda);
}

}  // namespace

const KernelDefinition& spectrum_power_kernel() {
  static const KernelDefinition kernel = make_power();
  return kernel;
}
const KernelDefinition& wiener_scale_kernel() {
  static const KernelDefinition kernel = make_wiener_scale();
  return kernel;
}

}  // namespace strata::apps::camera
