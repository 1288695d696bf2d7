#pragma once
// How two particles are registered: the rotation search and the Gaussian scales.

#include <cstdint>

namespace strata::apps::microscopy {

// Settings of the registration search. A coarse grid of rotations is scored at a wide Gaussian
// scale, each with its translation found by mean-shift steps from the centroid alignment; the
// best is refined by a compass search over rotation and translation at a narrower scale,
// halving the steps whenever no neighbour is better.
struct RegistrationOptions {
  std::uint32_t coarse_angles = 36;  // rotations tried on the coarse grid (360/n degrees apart)
  std::uint32_t translation_iterations = 4;  // mean-shift steps per coarse rotation
  std::uint32_t refinement_rounds = 12;      // compass-search rounds
  float coarse_scale = 8.0f;                 // nm, added in quadrature to the localization sigmas
  float fine_scale = 3.0f;                   // nm, for the refinement and the reported scores
  float translation_step = 3.0f;             // nm, the compass search's first translation step
};

}  // namespace strata::apps::microscopy
