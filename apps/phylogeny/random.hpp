#pragma once
// A seeded random source whose every draw is the same on every platform and standard library
// (xoshiro256** seeded through splitmix64, with its own distributions), so a generated data set
// depends on the seed alone.

#include <cstdint>
#include <span>
#include <vector>

namespace strata::apps::phylogeny {

class Random {
 public:
  explicit Random(std::uint64_t seed);

  std::uint64_t next();
  // Uniform in [0, 1).
  double uniform();
  // Uniform in [low, high).
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform integer in [0, bound); bound > 0.
  std::uint64_t below(std::uint64_t bound);
  // Uniform integer in [low, high].
  std::uint64_t between(std::uint64_t low, std::uint64_t high) {
    return low + below(high - low + 1);
  }
  // Standard normal.
  double normal();
  // Gamma with this shape and scale 1 (Marsaglia and Tsang).
  double gamma(double shape);
  // Poisson with this mean (inversion for small means, normal approximation above 64).
  std::uint64_t poisson(double mean);
  // Geometric number of trials until the first success, >= 1, with success probability p.
  std::uint64_t geometric(double p);

 private:
  std::uint64_t state_[4];
};

// Draws indices with the probabilities given by `weights` (need not be normalized).
class DiscreteDistribution {
 public:
  explicit DiscreteDistribution(std::span<const double> weights);
  std::size_t operator()(Random& random) const;

 private:
  std::vector<double> cumulative_;
};

}  // namespace strata::apps::phylogeny
