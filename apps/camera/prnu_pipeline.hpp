#pragma once
// The PRNU kernels launched in order on a device: pattern extraction (the application's
// preprocess) and correlation (its compare), and the NCC from the correlation's partial sums.

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
// multiple of 4 KiB (OpenCL sub-buffers of an array argument need aligned offsets).
struct ExtractionScratch {
  std::uint64_t spectrum = 0;  // byte offsets from the image's start
  std::uint64_t power = 0;
  std::uint64_t energy = 0;
  std::uint64_t bytes = 0;  // the image buffer's size: at least the luminance's
  static ExtractionScratch of(ImageShape shape);
};

// Extracts the PRNU pattern of `image` (float luminance of `shape` at its start, in a buffer of
// ExtractionScratch::of(shape).bytes; used as scratch, its contents are lost) into `pattern`
// (float, same size): residual, zero-mean rows, zero-mean columns, the Wiener filter in the
// Fourier domain (wiener_kernels.hpp, FFTs through the device's library), unit norm. Returns
// the event of the last kernel.
device::Event extract_pattern(allpairs::DeviceContext& context, ImageShape shape,
                              const device::KernelArg& image, const device::KernelArg& pattern);

// Launches the correlation of two patterns of `values` floats into `parts` (correlation_parts
// floats). Returns its event.
device::Event correlate(allpairs::DeviceContext& context, std::uint64_t values,
                        const device::KernelArg& left, const device::KernelArg& right,
                        const device::KernelArg& parts);

// The normalized cross-correlation of two extracted (zero-mean, unit-norm) patterns from the
// correlation's partial sums (correlation_parts floats, as bytes).
float ncc_from_parts(std::span<const std::byte> parts);

}  // namespace strata::apps::camera
