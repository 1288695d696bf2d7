#pragma once
// The PRNU kernels launched in order on a device: pattern extraction (the application's
// preprocess) and comparison (its compare: correlation and cross-correlation surface), and the
// NCC and PCE from what the comparison leaves at the start of its buffer.

#include <cstddef>
#include <cstdint>
#include <span>

#include "strata/allpairs/application.hpp"
#include "strata/device/kernel.hpp"

namespace strata::apps::camera {

// The size every image of a set has.
struct ImageShape {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint64_t pixels() const { return std::uint64_t{width} * height; }
};

// Variance of the sensor noise the residual filter keeps (grey levels squared): neighbourhoods
// that vary more than this hold scene content and are attenuated. 9 (a standard deviation of 3)
// is the value Lukas, Fridrich and Goljan use for their denoising filter.
inline constexpr float residual_noise_variance = 9.0f;

// Where the extraction keeps its intermediate arrays in the image's buffer once the residual is
// out: the pattern's half spectrum, its power and the column energies, each starting at a
// multiple of 4 KiB (a multiple of every device's base-address alignment: whole aligned loads).
struct ExtractionScratch {
  std::uint64_t spectrum = 0;  // byte offsets from the image's start
  std::uint64_t power = 0;
  std::uint64_t energy = 0;
  std::uint64_t bytes = 0;  // the image buffer's size: at least the luminance's
  static ExtractionScratch of(ImageShape shape);
};

// An extracted item: the pattern (float, width * height) at its start, then its half spectrum
// (height x (width / 2 + 1) complex floats) at a multiple of 4 KiB.
struct PatternLayout {
  std::uint64_t spectrum = 0;  // byte offset
  std::uint64_t bytes = 0;
  static PatternLayout of(ImageShape shape);
};

// A comparison's buffer: the result part copied back to the host (the correlation's
// `parts` partial sums, then prnu_peak_energy's peak_energy_values), then scratch at
// multiples of 4 KiB: the surface's partials (prnu_surface_partials), the cross spectrum and
// the cross-correlation surface (float, width * height).
struct ComparisonLayout {
  std::uint32_t parts = 0;  // reduction_groups(pixels): the correlation's partial sums
  std::uint64_t result_bytes = 0;
  std::uint64_t partials = 0;  // byte offsets
  std::uint64_t cross_spectrum = 0;
  std::uint64_t surface = 0;
  std::uint64_t bytes = 0;
  static ComparisonLayout of(ImageShape shape);
};

// Extracts the PRNU pattern of `image` (float luminance of `shape` at its start, in a buffer of
// ExtractionScratch::of(shape).bytes; used as scratch, its contents are lost) into `pattern`
// (a buffer of PatternLayout::of(shape).bytes): residual, zero-mean rows, zero-mean columns, the
// Wiener filter in the Fourier domain (wiener_kernels.hpp, FFTs through the device's library),
// unit norm; then the final pattern's half spectrum after it. Returns the event of the last
// operation.
device::Event extract_pattern(allpairs::DeviceContext& context, ImageShape shape,
                              const device::KernelArg& image, const device::KernelArg& pattern);

// Launches the correlation of two patterns of `values` floats into `parts`
// (reduction_groups(values) floats). Returns its event.
device::Event correlate(allpairs::DeviceContext& context, std::uint64_t values,
                        const device::KernelArg& left, const device::KernelArg& right,
                        const device::KernelArg& parts);

// Where the PCE takes its peak: at zero shift (photos of one size, whose sensor patterns are
// aligned), or the largest value over every shift (centre crops of photos of several sizes).
enum class PeakAt { zero_shift, any_shift };

// Compares two extracted items (PatternLayout) into `comparison` (ComparisonLayout): the
// correlation's partial sums, then the cross-correlation surface's peak and energy
// (pce_kernels.hpp). Returns the event of the last kernel.
device::Event compare_patterns(allpairs::DeviceContext& context, ImageShape shape,
                               const device::KernelArg& left, const device::KernelArg& right,
                               const device::KernelArg& comparison, PeakAt peak);

// The peak and energy of a cross-correlation surface of `shape` into result[at, at + 4)
// (pce_kernels.hpp): the surface's partials (3 * reduction_groups(shape.pixels()) floats of
// `partials`), then their combination. Returns the event of the last kernel.
device::Event peak_and_energy(allpairs::DeviceContext& context, ImageShape shape,
                              const device::KernelArg& surface, const device::KernelArg& partials,
                              const device::KernelArg& result, std::uint32_t at, PeakAt peak);

// The normalized cross-correlation of two extracted (zero-mean, unit-norm) patterns from the
// correlation's partial sums (every float of `parts`, as bytes: a comparison's first
// ComparisonLayout::parts).
float ncc_from_parts(std::span<const std::byte> parts);

// The peak-to-correlation energy from prnu_peak_energy's values (peak_energy_values floats, as
// bytes): sign(peak) * peak^2 / (energy / count); 0 when nothing was summed or the energy is 0.
float pce_from_peak_energy(std::span<const std::byte> values);

}  // namespace strata::apps::camera
