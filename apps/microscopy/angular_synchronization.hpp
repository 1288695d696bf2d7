#pragma once
// One global rotation per particle from all pairwise relative rotations: angular
// synchronization by the leading eigenvector of the matrix of pairwise rotations (Singer 2011),
// modulo the template's rotational symmetry.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace strata::apps::microscopy {

// One registered pair: particle `right` is particle `left` rotated by `degrees`.
struct RelativeRotation {
  std::uint32_t left = 0;
  std::uint32_t right = 0;
  double degrees = 0;
  double weight = 1;  // confidence, e.g. the registration score
};

// Rotations theta (degrees, [0, 360 / symmetry)) with theta[right] - theta[left] close to each
// pair's rotation modulo 360 / symmetry, up to one common offset.
std::vector<double> synchronize_rotations(std::size_t particles,
                                          std::span<const RelativeRotation> pairs, int symmetry);

// synchronize_rotations() repeated on the pairs that agree with the previous estimate within
// `inlier_degrees` (misregistered pairs are outliers, not noise), `rounds` times.
std::vector<double> synchronize_rotations_robustly(std::size_t particles,
                                                   std::span<const RelativeRotation> pairs,
                                                   int symmetry, double inlier_degrees,
                                                   int rounds = 3);

// `degrees` wrapped into [-period / 2, period / 2).
double wrap_degrees(double degrees, double period);

}  // namespace strata::apps::microscopy
