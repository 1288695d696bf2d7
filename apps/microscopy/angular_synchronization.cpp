#include "microscopy/angular_synchronization.hpp"

#include <cmath>
#include <complex>
#include <numbers>

namespace strata::apps::microscopy {
namespace {

constexpr int power_iterations = 500;
constexpr double degrees_per_radian = 180.0 / std::numbers::pi;

}  // namespace

double wrap_degrees(double degrees, double period) {
  double wrapped = std::fmod(degrees + period / 2, period);
  if (wrapped < 0) wrapped += period;
  return wrapped - period / 2;
}

std::vector<double> synchronize_rotations(std::size_t particles,
                                          std::span<const RelativeRotation> pairs, int symmetry) {
  using Complex = std::complex<double>;
  const double m = symmetry;
  // H[a][b] = sum of w exp(i m phi_ab): with phi_ab = theta_b - theta_a, H = conj(z) z^T for
  // z = exp(i m theta), whose leading eigenvector is conj(z).
  std::vector<Complex> h(particles * particles);
  for (std::size_t a = 0; a < particles; ++a)
    h[a * particles + a] = 1.0;
  for (const RelativeRotation& pair : pairs) {
    if (pair.left >= particles || pair.right >= particles || pair.left == pair.right) continue;
    const Complex z = std::polar(pair.weight, m * pair.degrees / degrees_per_radian);
    h[pair.left * particles + pair.right] += z;
    h[pair.right * particles + pair.left] += std::conj(z);
  }
  std::vector<Complex> v(particles, 1.0);
  std::vector<Complex> next(particles);
  for (int iteration = 0; iteration < power_iterations; ++iteration) {
    double norm = 0;
    for (std::size_t a = 0; a < particles; ++a) {
      Complex sum = 0;
      for (std::size_t b = 0; b < particles; ++b)
        sum += h[a * particles + b] * v[b];
      next[a] = sum;
      norm += std::norm(sum);
    }
    norm = std::sqrt(norm);
    if (norm == 0) break;
    for (std::size_t a = 0; a < particles; ++a)
      v[a] = next[a] / norm;
  }
  const double period = 360.0 / m;
  std::vector<double> theta(particles);
  for (std::size_t a = 0; a < particles; ++a) {
    const double degrees = -std::arg(v[a]) * degrees_per_radian / m;
    theta[a] = wrap_degrees(degrees, period) + period / 2;
  }
  return theta;
}

std::vector<double> synchronize_rotations_robustly(std::size_t particles,
                                                   std::span<const RelativeRotation> pairs,
                                                   int symmetry, double inlier_degrees,
                                                   int rounds) {
  std::vector<double> theta = synchronize_rotations(particles, pairs, symmetry);
  const double period = 360.0 / symmetry;
  for (int round = 0; round < rounds; ++round) {
    std::vector<RelativeRotation> inliers;
    for (const RelativeRotation& pair : pairs) {
      if (pair.left >= particles || pair.right >= particles) continue;
      const double residual =
          wrap_degrees(pair.degrees - (theta[pair.right] - theta[pair.left]), period);
      if (std::abs(residual) <= inlier_degrees) inliers.push_back(pair);
    }
    if (inliers.empty()) break;
    theta = synchronize_rotations(particles, inliers, symmetry);
  }
  return theta;
}

}  // namespace strata::apps::microscopy
