#include "lightning/correlator_data.hpp"

#include <cmath>
#include <numbers>
#include <random>

namespace strata::lightning {

std::uint64_t correlator_baselines(std::uint64_t antennas) {
  return antennas * (antennas + 1) / 2;
}

std::vector<float> random_antenna_samples(const CorrelatorShape& shape, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  // A complex Gaussian of power 1: each part of variance 1/2.
  std::normal_distribution<float> part(0.0f, std::sqrt(0.5f));
  std::uniform_real_distribution<float> angle(0.0f, 2 * std::numbers::pi_v<float>);
  const std::uint64_t row = 2 * shape.samples;
  std::vector<float> samples(shape.channels * shape.antennas * row);
  std::vector<float> source(row);
  for (std::uint64_t c = 0; c < shape.channels; ++c) {
    for (float& value : source)
      value = part(random);
    for (std::uint64_t a = 0; a < shape.antennas; ++a) {
      const float phase = angle(random);
      const float cos_phase = std::cos(phase);
      const float sin_phase = std::sin(phase);
      float* x = samples.data() + (c * shape.antennas + a) * row;
      for (std::uint64_t t = 0; t < shape.samples; ++t) {
        const float sr = source[2 * t];
        const float si = source[2 * t + 1];
        x[2 * t] = sr * cos_phase - si * sin_phase + part(random);
        x[2 * t + 1] = sr * sin_phase + si * cos_phase + part(random);
      }
    }
  }
  return samples;
}

std::vector<double> correlator_reference(const CorrelatorShape& shape,
                                         const std::vector<float>& samples) {
  const std::uint64_t baselines = correlator_baselines(shape.antennas);
  const std::uint64_t row = 2 * shape.samples;
  std::vector<double> visibilities(shape.channels * baselines * 2);
  for (std::uint64_t c = 0; c < shape.channels; ++c) {
    const float* channel = samples.data() + c * shape.antennas * row;
    for (std::uint64_t a = 0; a < shape.antennas; ++a) {
      const float* xa = channel + a * row;
      for (std::uint64_t b = 0; b <= a; ++b) {
        const float* xb = channel + b * row;
        double re = 0;
        double im = 0;
        for (std::uint64_t t = 0; t < shape.samples; ++t) {
          const double ar = xa[2 * t], ai = xa[2 * t + 1];
          const double br = xb[2 * t], bi = xb[2 * t + 1];
          // x_a conj(x_b) = (ar + i ai)(br - i bi)
          re += ar * br + ai * bi;
          im += ai * br - ar * bi;
        }
        double* out = visibilities.data() + (c * baselines + a * (a + 1) / 2 + b) * 2;
        out[0] = re;
        out[1] = im;
      }
    }
  }
  return visibilities;
}

}  // namespace strata::lightning
