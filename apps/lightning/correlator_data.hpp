#pragma once
// The Correlator's antenna samples drawn at random (a point source in noise), and the sequential
// reference the distributed run is checked against.

#include <cstdint>
#include <vector>

namespace strata::lightning {

// The shape of a correlation: `channels` frequency channels, each with `samples` complex time
// samples from each of `antennas` antennas (one polarisation).
struct CorrelatorShape {
  std::uint64_t channels = 0;
  std::uint64_t antennas = 0;
  std::uint64_t samples = 0;
};

// Pairs of antennas a >= b, autocorrelations included: antennas (antennas + 1) / 2. Baseline
// (a, b) is number a (a + 1) / 2 + b.
std::uint64_t correlator_baselines(std::uint64_t antennas);

// Row-major channels x antennas x (2 samples) f32: sample t of antenna a in channel c is
// (re, im) at [c][a][2t], [c][a][2t + 1]. Each is a point source seen with a phase of its own per
// antenna and channel, s(t) e^(i phi), plus the antenna's own noise (both complex Gaussian, the
// source's power 1, the noise's 1): visibilities are the source's fringes over a noise floor.
std::vector<float> random_antenna_samples(const CorrelatorShape& shape, std::uint64_t seed);

// The visibilities in double: for each channel and baseline (a, b), the sum over the samples of
// x_a(t) conj(x_b(t)), at [c][baseline][0] (real) and [1] (imaginary), summed in time order.
std::vector<double> correlator_reference(const CorrelatorShape& shape,
                                         const std::vector<float>& samples);

}  // namespace strata::lightning
