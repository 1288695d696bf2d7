#pragma once
// Particle fusion (Heydarian et al. 2018): every particle brought into one frame by global
// rotations (angular synchronization of the pairwise rotations) and global shifts (least squares
// over the pairwise translations of the pairs consistent with those rotations), the fused
// localizations rendered as a super-resolution image, and that image's correlation with a
// template's rendering.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "microscopy/localization.hpp"
#include "microscopy/registration_result.hpp"
#include "microscopy/site_template.hpp"
#include "strata/allpairs/results_file.hpp"

namespace strata::apps::microscopy {

// A localization in the fused frame and the particle (item) it comes from.
struct FusedLocalization {
  float x = 0;
  float y = 0;
  float sigma = 0;
  std::uint32_t particle = 0;
};

struct Fusion {
  // Per particle: the rotation (degrees, counter-clockwise) and then the shift (nm) that bring its
  // localizations, centred at their centroid, into the fused frame.
  std::vector<double> rotation_degrees;
  std::vector<std::array<double, 2>> shift;
  std::vector<bool> present;   // particles with results (the others are left out)
  std::size_t pairs_used = 0;  // pairs consistent with the global rotations and shifts
  std::size_t pairs = 0;
  double shift_residual_rms = 0;  // nm, over the pairs used
  std::vector<FusedLocalization> localizations;
};

// Fuses `particles` (as read from their files) from the registrations of their pairs; rotations
// are synchronized modulo 360 / `symmetry` degrees. A pair counts when its rotation agrees with the
// global ones within `inlier_degrees` (modulo the symmetry); for a symmetric structure the fused
// frame is centred at the structure's centre.
Fusion fuse_particles(std::span<const Particle> particles,
                      std::span<const allpairs::PairResult<RegistrationResult>> results,
                      int symmetry, double inlier_degrees = 10.0);

// A rendering: each localization a normalized Gaussian of its sigma on a grid of `pixel` nm
// centred at (0, 0), `size` pixels square; row 0 is the top (largest y).
struct Rendering {
  std::uint32_t size = 0;
  double pixel = 1.0;
  std::vector<float> values;  // size * size
};
Rendering render_localizations(std::span<const FusedLocalization> localizations, std::uint32_t size,
                               double pixel);
// The grid that holds 98 % of the localizations with a margin: `pixel` nm per pixel.
std::uint32_t rendering_size(std::span<const FusedLocalization> localizations, double pixel);

// How well a rendering matches a template: the best Pearson correlation of the rendering with
// the template's sites rendered as Gaussians of `sigma` nm, over the template's rotations
// (1 degree steps over 360 / symmetry, then 0.25) and shifts (about the rendering's centre of
// intensity, 0.5 nm steps within 5 nm).
struct TemplateMatch {
  double correlation = 0;
  double angle_degrees = 0;
  double shift_x = 0;
  double shift_y = 0;
};
TemplateMatch match_template(const Rendering& rendering, const SiteTemplate& structure,
                             double sigma);

}  // namespace strata::apps::microscopy
