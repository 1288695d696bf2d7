#pragma once
// The result of registering one pair of particles, as the results file stores it.

namespace strata::apps::microscopy {

// The best rigid registration of the left particle onto the right one.
struct RegistrationResult {
  // GMM L2 overlap at the optimum over sqrt(self overlap left * self overlap right): ~1 for two
  // copies of one particle, lower for partial or wrong matches.
  float score = 0;
  // Estimated relative rotation in degrees, (-180, 180]: the right particle is the left one
  // rotated counter-clockwise by this angle (plus a translation).
  float angle = 0;
  // The Bhattacharyya overlap at the optimum, normalized the same way.
  float bhattacharyya = 0;
  // The translation (nm) at the optimum, after the rotation: with both particles centred at
  // their centroids, a localization x of the left particle lands at R(angle) x + (tx, ty) in the
  // right one.
  float tx = 0;
  float ty = 0;
};

}  // namespace strata::apps::microscopy
