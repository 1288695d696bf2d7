#pragma once
// The Correlator (the lightning paper's §4.2, after van Nieuwpoort and Romein's radio-astronomy
// correlator) as one distributed kernel over a 3-d thread grid, as the paper simplified it: thread
// (b, a, c) correlates antennas a >= b in channel c; threads with b > a have nothing to do.

#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

// vis[c, a (a + 1) / 2 + b, :] = the sum over t < samples of x_a(t) conj(x_b(t)) in channel c,
// (real, imaginary), accumulated in f32 in time order. Launched over {antennas, antennas,
// channels} threads; a superblock must span the whole antenna grid (its annotation writes every
// baseline of its channels).
// Arguments: channels, antennas, samples (i32), x (channels x antennas x 2 samples f32: re, im),
// vis (channels x baselines x 2 f32).
array::ArrayKernel correlator_kernel();

std::vector<array::ArrayKernel> correlator_kernels();

}  // namespace strata::lightning
