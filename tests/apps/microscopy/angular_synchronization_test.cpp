// Global rotations from pairwise relative rotations.
#include "microscopy/angular_synchronization.hpp"

#include <gtest/gtest.h>

#include "microscopy/random_source.hpp"

namespace strata::apps::microscopy {
namespace {

// Pairs (a < b) with rotation theta[b] - theta[a] + noise; every `outlier_every`-th is random.
std::vector<RelativeRotation> pairs_of(const std::vector<double>& theta, double noise,
                                       std::size_t outlier_every, RandomSource& random) {
  std::vector<RelativeRotation> pairs;
  std::size_t k = 0;
  for (std::uint32_t a = 0; a < theta.size(); ++a) {
    for (std::uint32_t b = a + 1; b < theta.size(); ++b, ++k) {
      const bool outlier = outlier_every > 0 && k % outlier_every == 0;
      const double degrees =
          outlier ? random.uniform(0, 360) : theta[b] - theta[a] + noise * random.normal();
      pairs.push_back({a, b, degrees, 1.0});
    }
  }
  return pairs;
}

// Largest |estimated - true| over particles after removing the offset of particle 0.
double largest_residual(const std::vector<double>& estimated, const std::vector<double>& theta,
                        double period) {
  double largest = 0;
  for (std::size_t a = 0; a < theta.size(); ++a) {
    const double residual =
        wrap_degrees((estimated[a] - theta[a]) - (estimated[0] - theta[0]), period);
    largest = std::max(largest, std::abs(residual));
  }
  return largest;
}

TEST(AngularSynchronization, ExactPairsGiveExactRotations) {
  RandomSource random(5);
  std::vector<double> theta(12);
  for (double& t : theta)
    t = random.uniform(0, 360);
  const auto estimated = synchronize_rotations(theta.size(), pairs_of(theta, 0, 0, random), 1);
  EXPECT_LT(largest_residual(estimated, theta, 360), 1e-6);
  for (double e : estimated) {
    EXPECT_GE(e, 0);
    EXPECT_LT(e, 360);
  }
}

TEST(AngularSynchronization, OutliersAreRejectedAndNoiseAveraged) {
  RandomSource random(9);
  std::vector<double> theta(20);
  for (double& t : theta)
    t = random.uniform(0, 360);
  // 2 degrees of noise and one pair in five a random rotation: the outliers pull the plain
  // estimate; rejecting the pairs that disagree with it removes their pull.
  const auto pairs = pairs_of(theta, 2, 5, random);
  const double plain = largest_residual(synchronize_rotations(theta.size(), pairs, 1), theta, 360);
  const double robust =
      largest_residual(synchronize_rotations_robustly(theta.size(), pairs, 1, 20.0), theta, 360);
  EXPECT_LT(robust, 2.5);
  EXPECT_LT(robust, plain);
}

TEST(AngularSynchronization, RotationsModuloASymmetry) {
  RandomSource random(13);
  std::vector<double> theta(10);
  for (double& t : theta)
    t = random.uniform(0, 360);
  // An 8-fold template: each pair is known only modulo 45 degrees.
  auto pairs = pairs_of(theta, 0, 0, random);
  for (auto& pair : pairs)
    pair.degrees += 45.0 * static_cast<double>(random.below(8));
  const auto estimated = synchronize_rotations(theta.size(), pairs, 8);
  EXPECT_LT(largest_residual(estimated, theta, 45), 1e-6);
  for (double e : estimated)
    EXPECT_LT(e, 45);
}

TEST(AngularSynchronization, WrapsIntoHalfOpenInterval) {
  EXPECT_DOUBLE_EQ(wrap_degrees(190, 360), -170);
  EXPECT_DOUBLE_EQ(wrap_degrees(-190, 360), 170);
  EXPECT_DOUBLE_EQ(wrap_degrees(180, 360), -180);
  EXPECT_DOUBLE_EQ(wrap_degrees(50, 45), 5);
  EXPECT_DOUBLE_EQ(wrap_degrees(-725, 360), -5);
}

}  // namespace
}  // namespace strata::apps::microscopy
