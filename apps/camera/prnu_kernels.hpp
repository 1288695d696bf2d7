#pragma once
// The device kernels of the camera application, each with a C++ implementation (the CPU
// backend) and an OpenCL C one: PRNU pattern extraction as in Van Werkhoven et al.'s application
// for the Netherlands Forensic Institute (noise residual of a denoiser, rows and columns made
// zero-mean, unit norm) and the normalized cross-correlation of two patterns (partial sums of
// their dot product). Images and patterns are row-major float arrays of width * height. Kernel
// names start with prnu_ (devices cache compiled kernels by name).

#include <cstdint>

#include "strata/device/kernel.hpp"

namespace strata::apps::camera {

// Work-group size of the kernels that reduce (rows, correlation).
inline constexpr std::uint32_t reduction_group = 128;
// How many work-groups a reduction over `values` values takes (the correlation's parts, the
// PCE's partials): one per 8,192 values (64 a thread), 1 to 1,024 — every compute unit of a GPU
// for a photo, few groups for a small image.
std::uint32_t reduction_groups(std::uint64_t values);

// prnu_residual(width, height, noise_variance, image, pattern), one thread per pixel (2-D): the
// noise residual of a local Wiener filter over 3x3 neighbourhoods (edges replicated), (I - mean) *
// min(1, noise_variance / local variance): flat regions keep their noise, edges and texture — scene
// content, not sensor noise — are attenuated.
const device::KernelDefinition& residual_kernel();

// prnu_zero_mean_rows(width, height, pattern), one work-group of reduction_group threads per row:
// subtracts from each row's even and odd columns their own mean (in place): with the columns'
// step, every row and column of each of the colour filter's four 2x2 sub-lattices is zero-mean,
// as in the NFI's extraction. Width and height at least 2.
const device::KernelDefinition& zero_mean_rows_kernel();

// prnu_zero_mean_columns(width, height, pattern, energy), one thread per column: subtracts from
// each column's even and odd rows their own mean (in place) and writes the column's sum of
// squares afterwards to energy[x].
const device::KernelDefinition& zero_mean_columns_kernel();

// prnu_inverse_norm(width, energy), one thread: energy[width] = 1 / sqrt(sum of energy[0, width)),
// or 0 for a pattern that is all zero.
const device::KernelDefinition& inverse_norm_kernel();

// prnu_scale(count, width, pattern, energy), one thread per value: pattern[i] *= energy[width].
const device::KernelDefinition& scale_kernel();

// prnu_correlation(count, parts, left, right, out), `parts` work-groups of reduction_group
// threads: out[g] = the dot product of left and right over the g-th of `parts` contiguous ranges
// (their sum is the NCC of unit-norm patterns).
const device::KernelDefinition& correlation_kernel();

}  // namespace strata::apps::camera
