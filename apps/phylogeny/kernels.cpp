#include "phylogeny/kernels.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <string>

#include "phylogeny/composition_vector.hpp"
#include "strata/device/device.hpp"  // CpuBlock::array

namespace strata::apps::phylogeny {

using device::CpuBlock;
using device::ParamAccess;

device::KernelDefinition composition_vector_kernel() {
  return device::KernelDefinition("phylogeny_composition_vector")
      .scalar<std::uint32_t>("k")
      .scalar<std::uint64_t>("residues")
      .array<std::uint8_t>("parsed", ParamAccess::read)
      .array<std::uint32_t>("vector", ParamAccess::write)
      .scalar<std::uint64_t>("words")
      .cpu([](const CpuBlock& block) {
        const auto k = block.scalar<std::uint32_t>(0);
        const auto residues = block.scalar<std::uint64_t>(1);
        const std::uint8_t* parsed = block.array<std::uint8_t>(2);
        std::uint32_t* vector = block.array<std::uint32_t>(3);
        const auto words = block.scalar<std::uint64_t>(4);
        build_composition_vector(std::span(parsed, residues), static_cast<int>(k),
                                 std::span(vector, words));
      });
}

device::KernelDefinition correlation_kernel() {
  return device::KernelDefinition("phylogeny_correlation")
      .array<std::uint32_t>("left", ParamAccess::read)
      .array<std::uint32_t>("right", ParamAccess::read)
      .array<float>("partial", ParamAccess::write)
      .define("GROUPS", std::to_string(correlation_groups))
      .define("GROUP_SIZE", std::to_string(correlation_group_size))
      .define("HEADER", std::to_string(vector_header_words))
      .cpu([](const CpuBlock& block) {
        const std::uint32_t* left = block.array<std::uint32_t>(0);
        const std::uint32_t* right = block.array<std::uint32_t>(1);
        float* partial = block.array<float>(2);
        // Slice the shorter vector; look its keys up in the longer one.
        const std::uint32_t* a = left[0] <= right[0] ? left : right;
        const std::uint32_t* b = a == left ? right : left;
        const std::uint64_t na = a[0], nb = b[0];
        const std::uint64_t group = block.begin.x / correlation_group_size;
        const std::uint64_t begin = na * group / correlation_groups;
        const std::uint64_t end = na * (group + 1) / correlation_groups;
        auto key_a = [&](std::uint64_t i) { return a[vector_header_words + 2 * i]; };
        auto key_b = [&](std::uint64_t j) { return b[vector_header_words + 2 * j]; };
        double sum = 0;
        if (begin < end) {
          // The first entry of b not below the slice's first key, then a merge.
          std::uint64_t low = 0, high = nb;
          while (low < high) {
            const std::uint64_t mid = (low + high) / 2;
            if (key_b(mid) < key_a(begin)) {
              low = mid + 1;
            } else {
              high = mid;
            }
          }
          std::uint64_t j = low;
          for (std::uint64_t i = begin; i < end && j < nb;) {
            if (key_a(i) < key_b(j)) {
              ++i;
            } else if (key_b(j) < key_a(i)) {
              ++j;
            } else {
              sum += static_cast<double>(std::bit_cast<float>(a[vector_header_words + 2 * i + 1])) *
                     static_cast<double>(std::bit_cast<float>(b[vector_header_words + 2 * j + 1]));
              ++i;
              ++j;
            }
          }
        }
        partial[group] = static_cast<float>(sum);
      })
      .opencl(R"(
__kernel void phylogeny_correlation(__global const uint* left, __global const uint* right,
                                    __global float* partial) {
  __local float sums[GROUP_SIZE];
  const bool left_shorter = left[0] <= right[0];
  __global const uint* a = left_shorter ? left : right;
  __global const uint* b = left_shorter ? right : left;
  const ulong na = a[0], nb = b[0];
  const ulong group = get_group_id(0);
  const uint t = get_local_id(0);
  // The thread's run of the group's slice of a, merged with the part of b it spans: one search
  // a thread, then every key read once (a search per key read ~16 keys of b for each of a).
  const ulong begin = na * group / GROUPS, end = na * (group + 1) / GROUPS;
  const ulong first = begin + (end - begin) * t / GROUP_SIZE;
  const ulong last = begin + (end - begin) * (t + 1) / GROUP_SIZE;
  float sum = 0.0f;
  if (first < last) {
    const uint key = a[HEADER + 2 * first];
    ulong low = 0, high = nb;
    while (low < high) {
      const ulong mid = (low + high) / 2;
      if (b[HEADER + 2 * mid] < key) low = mid + 1; else high = mid;
    }
    for (ulong i = first, j = low; i < last && j < nb;) {
      const uint ka = a[HEADER + 2 * i], kb = b[HEADER + 2 * j];
      if (ka < kb) {
        ++i;
      } else if (kb < ka) {
        ++j;
      } else {
        sum += as_float(a[HEADER + 2 * i + 1]) * as_float(b[HEADER + 2 * j + 1]);
        ++i;
        ++j;
      }
    }
  }
  sums[t] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = GROUP_SIZE / 2; stride > 0; stride /= 2) {
    if (t < stride) sums[t] += sums[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) partial[group] = sums[0];
}
)")
      .cuda(R"(
extern "C" __global__ void phylogeny_correlation(const unsigned int* left,
                                                 const unsigned int* right, float* partial) {
  __shared__ float sums[GROUP_SIZE];
  const bool left_shorter = left[0] <= right[0];
  const unsigned int* a = left_shorter ? left : right;
  const unsigned int* b = left_shorter ? right : left;
  const unsigned long long na = a[0], nb = b[0];
  const unsigned long long group = blockIdx.x;
  const unsigned int t = threadIdx.x;
  const unsigned long long begin = na * group / GROUPS, end = na * (group + 1) / GROUPS;
  const unsigned long long first = begin + (end - begin) * t / GROUP_SIZE;
  const unsigned long long last = begin + (end - begin) * (t + 1) / GROUP_SIZE;
  float sum = 0.0f;
  if (first < last) {
    const unsigned int key = a[HEADER + 2 * first];
    unsigned long long low = 0, high = nb;
    while (low < high) {
      const unsigned long long mid = (low + high) / 2;
      if (b[HEADER + 2 * mid] < key) low = mid + 1; else high = mid;
    }
    for (unsigned long long i = first, j = low; i < last && j < nb;) {
      const unsigned int ka = a[HEADER + 2 * i], kb = b[HEADER + 2 * j];
      if (ka < kb) {
        ++i;
      } else if (kb < ka) {
        ++j;
      } else {
        sum += __uint_as_float(a[HEADER + 2 * i + 1]) * __uint_as_float(b[HEADER + 2 * j + 1]);
        ++i;
        ++j;
      }
    }
  }
  sums[t] = sum;
  __syncthreads();
  for (unsigned int stride = GROUP_SIZE / 2; stride > 0; stride /= 2) {
    if (t < stride) sums[t] += sums[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[group] = sums[0];
}
)");
}

}  // namespace strata::apps::phylogeny
