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
// How many partial sums one correlation produces (one per work-group); their sum is the NCC.
inline constexpr std::uint32_t correlation_parts = 64;

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

// prnu_correlation(count, left, right, parts), correlation_parts work-groups of reduction_group
// threads: parts[g] = the dot product of left and right over the g-th of correlation_parts
// contiguous ranges.
const device::KernelDefinition& correlation_kernel();

}  // namespace strata::apps::camera
