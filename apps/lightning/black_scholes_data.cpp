#include "lightning/black_scholes_data.hpp"

#include <cmath>
#include <random>

namespace strata::lightning {

EuropeanOptions random_options(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const auto draw = [&](float low, float high) {
    std::uniform_real_distribution<float> between(low, high);
    std::vector<float> values(n);
    for (float& value : values)
      value = between(random);
    return values;
  };
  EuropeanOptions options;
  options.spot = draw(5.0f, 30.0f);
  options.strike = draw(1.0f, 100.0f);
  options.time = draw(0.25f, 10.0f);
  options.rate = draw(0.01f, 0.05f);
  options.volatility = draw(0.1f, 0.5f);
  return options;
}

Prices black_scholes_reference(const EuropeanOptions& options) {
  const std::size_t n = options.spot.size();
  const auto normal = [](double d) { return 0.5 * std::erfc(-d / std::sqrt(2.0)); };
  Prices prices;
  prices.call.resize(n);
  prices.put.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double s = options.spot[i];
    const double x = options.strike[i];
    const double t = options.time[i];
    const double r = options.rate[i];
    const double v = options.volatility[i];
    const double sqrt_t = std::sqrt(t);
    const double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    const double d2 = d1 - v * sqrt_t;
    const double discount = std::exp(-r * t);
    prices.call[i] = s * normal(d1) - x * discount * normal(d2);
    prices.put[i] = x * discount * normal(-d2) - s * normal(-d1);
  }
  return prices;
}

}  // namespace strata::lightning
