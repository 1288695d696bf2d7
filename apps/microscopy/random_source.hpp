#pragma once
// Random numbers the generator draws, identical on every platform for a seed: the standard
// library's distributions differ between implementations, std::mt19937_64 does not.

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace strata::apps::microscopy {

// Uniform, normal and Poisson variates from a seeded 64-bit Mersenne twister.
class RandomSource {
 public:
  explicit RandomSource(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform in 0 .. count - 1.
  std::uint64_t below(std::uint64_t count) {
    return static_cast<std::uint64_t>(uniform() * static_cast<double>(count));
  }
  bool chance(double probability) { return uniform() < probability; }

  // Standard normal (Box-Muller; the second variate is kept for the next call).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u = 1.0 - uniform();  // (0, 1]: the logarithm stays finite
    const double radius = std::sqrt(-2.0 * std::log(u));
    const double angle = 2.0 * std::numbers::pi * uniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

  // Poisson with mean `mean` (Knuth's product method; a rounded normal beyond a mean of 200).
  std::uint64_t poisson(double mean) {
    if (mean <= 0) return 0;
    if (mean > 200)
      return static_cast<std::uint64_t>(
          std::max(0.0, std::round(mean + std::sqrt(mean) * normal())));
    const double limit = std::exp(-mean);
    std::uint64_t count = 0;
    for (double product = uniform(); product > limit; product *= uniform())
      ++count;
    return count;
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace strata::apps::microscopy
