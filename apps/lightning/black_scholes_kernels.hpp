#pragma once
// Black-Scholes (the lightning paper's §4.2, after the CUDA samples' BlackScholes) as one
// distributed kernel: the closed-form prices of European call and put options, one option per
// thread, over arrays of the options' spot price, strike, time to expiry, rate and volatility.

#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

// call[i], put[i] = the Black-Scholes prices of option i, in f32, with the cumulative normal
// distribution of the CUDA samples (a polynomial, absolute error below 7.5e-8).
// Arguments: n, spot, strike, time, rate, volatility (n f32 each), call, put (n f32 each).
array::ArrayKernel black_scholes_kernel();

std::vector<array::ArrayKernel> black_scholes_kernels();

}  // namespace strata::lightning
