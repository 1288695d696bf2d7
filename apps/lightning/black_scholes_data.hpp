#pragma once
// Black-Scholes options drawn at random, and the sequential reference the distributed run is
// checked against.

#include <cstdint>
#include <vector>

namespace strata::lightning {

// `n` European options (the CUDA samples' ranges for spot, strike and time; rate and volatility
// drawn too): spot in [5, 30], strike in [1, 100], time in [0.25, 10] years, rate in
// [0.01, 0.05], volatility in [0.1, 0.5].
struct EuropeanOptions {
  std::vector<float> spot, strike, time, rate, volatility;
};
EuropeanOptions random_options(std::uint64_t n, std::uint64_t seed);

struct Prices {
  std::vector<double> call, put;
};
// The closed-form prices in double, with the exact cumulative normal (std::erfc), in order.
Prices black_scholes_reference(const EuropeanOptions& options);

}  // namespace strata::lightning
