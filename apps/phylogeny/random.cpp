#include "phylogeny/random.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace strata::apps::phylogeny {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

Random::Random(std::uint64_t seed) {
  for (auto& word : state_)
    word = splitmix64(seed);
}

std::uint64_t Random::next() {
  const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

double Random::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

std::uint64_t Random::below(std::uint64_t bound) {
  // Rejection of the incomplete last interval keeps the draw unbiased.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound);
  std::uint64_t x = next();
  while (x >= limit)
    x = next();
  return x % bound;
}

double Random::normal() {
  // Box-Muller; 1 - uniform() lies in (0, 1], so the logarithm is finite.
  const double u = 1.0 - uniform();
  const double v = uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

double Random::gamma(double shape) {
  if (shape <= 0) throw std::invalid_argument("gamma shape must be positive");
  if (shape < 1) {
    // Below shape 1 (Marsaglia and Tsang): Gamma(a) = Gamma(a + 1) * U^(1/a).
    const double u = 1.0 - uniform();
    return gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = normal();
    const double v0 = 1.0 + c * x;
    if (v0 <= 0) continue;
    const double v = v0 * v0 * v0;
    const double u = 1.0 - uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

std::uint64_t Random::poisson(double mean) {
  if (mean <= 0) return 0;
  if (mean > 64) {
    const double x = std::round(mean + std::sqrt(mean) * normal());
    return x < 0 ? 0 : static_cast<std::uint64_t>(x);
  }
  // Inversion: walk the cumulative distribution.
  const double u = uniform();
  double probability = std::exp(-mean);
  double cumulative = probability;
  std::uint64_t k = 0;
  while (u >= cumulative && k < 1000) {
    ++k;
    probability *= mean / static_cast<double>(k);
    cumulative += probability;
  }
  return k;
}

std::uint64_t Random::geometric(double p) {
  if (p >= 1) return 1;
  const double u = 1.0 - uniform();
  return 1 + static_cast<std::uint64_t>(std::floor(std::log(u) / std::log1p(-p)));
}

DiscreteDistribution::DiscreteDistribution(std::span<const double> weights) {
  double total = 0;
  for (const double w : weights) {
    if (!(w >= 0)) throw std::invalid_argument("negative or NaN weight");
    total += w;
    cumulative_.push_back(total);
  }
  if (!(total > 0)) throw std::invalid_argument("weights sum to zero");
  for (auto& c : cumulative_)
    c /= total;
  cumulative_.back() = 1.0;
}

std::size_t DiscreteDistribution::operator()(Random& random) const {
  const double u = random.uniform();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  return std::min<std::size_t>(static_cast<std::size_t>(it - cumulative_.begin()),
                               cumulative_.size() - 1);
}

}  // namespace strata::apps::phylogeny
