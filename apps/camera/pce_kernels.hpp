#pragma once
// The kernels of the peak-to-correlation energy (PCE) of two PRNU patterns, as in Van Werkhoven
// et al.'s NFI application: the circular cross-correlation surface of the patterns (from their
// half spectra: height x (width / 2 + 1) complex values, interleaved re, im), its peak, and the
// energy of the surface away from the peak. PCE = sign(peak) * peak^2 / (energy / count).

#include <cstdint>

#include "strata/device/kernel.hpp"

namespace strata::apps::camera {

// Side of the square around the peak (circular: wrapping around the edges) left out of the
// energy.
inline constexpr std::uint32_t peak_neighbourhood = 11;
// Values prnu_peak_energy writes: the peak, its index (uint32 bits), the energy and the count
// of values summed (uint32 bits).
inline constexpr std::uint32_t peak_energy_values = 4;

// prnu_cross_spectrum(count, left, right, product), one thread per complex value:
// product = left * conj(right) over `count` complex values; its inverse FFT is the surface
// c[k] = n * sum_i left_pattern[i + k] * right_pattern[i] (indices circular, n = width * height).
const device::KernelDefinition& cross_spectrum_kernel();

// prnu_surface_partials(width, height, surface, partials, groups), `groups` work-groups of
// reduction_group threads (reduction_groups(width * height), prnu_kernels.hpp), each over its
// share of the surface: partials[3g] = its largest value, partials[3g + 1] = that value's index
// (uint32 bits; the first on ties, all ones for an empty share), partials[3g + 2] = the sum of
// its values' squares. The surface is read once, by every compute unit of the device.
const device::KernelDefinition& surface_partials_kernel();

// prnu_peak_energy(width, height, surface, partials, groups, result, at, search), one work-group
// of reduction_group threads, after prnu_surface_partials: result[at] = the peak — with `search`
// the surface's largest value, without it the value at zero shift (index 0: patterns of photos of
// one size are aligned, and the largest of n values of an unrelated pair reaches ~sqrt(2 ln n)
// sigma by chance) — result[at + 1] = its index (y * width + x; the first on ties),
// result[at + 2] = the sum of squares of the values outside the peak_neighbourhood square centred
// on the peak (the total less the square's), result[at + 3] = how many values that is.
const device::KernelDefinition& peak_energy_kernel();

}  // namespace strata::apps::camera
