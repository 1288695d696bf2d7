#pragma once
// The device kernels of the phylogeny application: building a composition vector from parsed
// residues (preprocess) and the correlation of two vectors (compare).

#include <cstdint>

#include "strata/device/kernel.hpp"

namespace strata::apps::phylogeny {

// Builds the composition vector of parsed residues, serially in one block (a C++ kernel only:
// it sorts and counts strings). On the CPU device, where it beats the kernels of
// parallel_vector_kernels.hpp, and for k = 7.
// Parameters: u32 k, u64 residues, u8 parsed[residues] (read), u32 vector[words] (write),
// u64 words.
device::KernelDefinition composition_vector_kernel();

// The correlation of two vectors as partial sums: work-group g takes the g-th of
// `correlation_groups` equal slices of the shorter vector, each of its threads a run of the
// slice, which it merges with the longer vector from its first key's place there (found by
// binary search); the group writes the sum of products to partial[g]; the host adds them.
// Parameters: u32 left[] (read), u32 right[] (read), f32 partial[correlation_groups] (write).
// C++, OpenCL C and CUDA implementations (work-groups / blocks of correlation_group_size).
inline constexpr std::uint32_t correlation_groups = 64;
inline constexpr std::uint32_t correlation_group_size = 64;
device::KernelDefinition correlation_kernel();

}  // namespace strata::apps::phylogeny
