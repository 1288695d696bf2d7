#pragma once
// Fourier ring correlation (FRC; Nieuwenhuizen et al. 2013), the resolution measure of
// localization microscopy: two independent halves of the data binned into images, the normalized
// correlation of their Fourier transforms over rings of equal spatial frequency; the resolution is
// the inverse of the frequency where the (smoothed) curve first falls below 1/7.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "microscopy/fusion.hpp"

namespace strata::apps::microscopy {

struct FrcCurve {
  std::vector<double> frequency;    // per ring r = 1 .. size / 2: r / (size * pixel), in 1/nm
  std::vector<double> correlation;  // per ring, in [-1, 1]; 0 where a ring holds no energy
};

// The FRC of two `size` x `size` images (row-major) of `pixel` nm; transforms by FFTW.
FrcCurve fourier_ring_correlation(std::span<const float> first, std::span<const float> second,
                                  std::uint32_t size, double pixel);

// The resolution (nm) where the curve, smoothed over `smoothing` rings, first falls below
// `threshold`; none where it never does (the resolution is finer than the images can show).
std::optional<double> frc_resolution(const FrcCurve& curve, double threshold = 1.0 / 7.0,
                                     std::size_t smoothing = 5);

// The FRC of a fused super-particle: its localizations split by particle (even and odd particle
// indices, so the halves share no particle's errors), each half binned into a histogram of
// `pixel` nm over the rendering's grid.
struct FusedResolution {
  FrcCurve curve;
  std::optional<double> resolution_nm;
  double pixel = 0;
};
FusedResolution fused_particle_resolution(std::span<const FusedLocalization> localizations,
                                          double pixel);

}  // namespace strata::apps::microscopy
