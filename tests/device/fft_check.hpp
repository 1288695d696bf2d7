#pragma once
// The check every backend's FFT passes: forward and inverse transforms of a batch match a naive
// DFT computed in double precision, within 1e-5 of the largest reference magnitude.

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "device_transfers.hpp"
#include "strata/device/device.hpp"

namespace strata::device::testing {

// The shapes the backends are checked on: 1-D and 2-D, odd and even lengths, batches.
inline std::vector<FftShape> fft_check_shapes() {
  return {{1, 16, 1}, {1, 15, 3}, {12, 10, 2}, {9, 15, 1}, {7, 6, 2}};
}

// The half spectrum (rows x (columns/2+1) per batch item) of `real`, by the DFT's definition.
inline std::vector<std::complex<double>> naive_half_spectrum(const FftShape& shape,
                                                             const std::vector<float>& real) {
  const std::uint64_t half = shape.spectrum_columns();
  std::vector<std::complex<double>> out(shape.batch * shape.rows * half);
  for (std::uint64_t b = 0; b < shape.batch; ++b)
    for (std::uint64_t u = 0; u < shape.rows; ++u)
      for (std::uint64_t v = 0; v < half; ++v) {
        std::complex<double> sum = 0;
        for (std::uint64_t y = 0; y < shape.rows; ++y)
          for (std::uint64_t x = 0; x < shape.columns; ++x) {
            const double angle =
                -2 * std::numbers::pi *
                (static_cast<double>(u * y % shape.rows) / static_cast<double>(shape.rows) +
                 static_cast<double>(v * x % shape.columns) / static_cast<double>(shape.columns));
            sum += static_cast<double>(real[(b * shape.rows + y) * shape.columns + x]) *
                   std::polar(1.0, angle);
          }
        out[(b * shape.rows + u) * half + v] = sum;
      }
  return out;
}

// A buffer of `values` placed `offset` bytes into it (zeros before), uploaded (waits).
inline DeviceBuffer upload_at(Device& device, const std::vector<float>& values,
                              std::uint64_t offset) {
  const std::uint64_t bytes = values.size() * sizeof(float);
  DeviceBuffer buffer = device.allocate(offset + bytes);
  std::vector<unsigned char> zeros(offset, 0);
  Queue& up = device.queue(QueueKind::host_to_device);
  up.copy_to_device(buffer, 0, zeros.data(), offset).wait();
  up.copy_to_device(buffer, offset, values.data(), bytes).wait();
  return buffer;
}

// `count` floats of `buffer` from byte `offset`, after `after` (waits).
inline std::vector<float> download_at(Device& device, const DeviceBuffer& buffer,
                                      std::uint64_t offset, std::size_t count, const Event& after) {
  std::vector<float> values(count);
  device.queue(QueueKind::device_to_host)
      .copy_to_host(values.data(), buffer, offset, count * sizeof(float), {&after, 1})
      .wait();
  return values;
}

// The largest magnitude of `expected` and the largest distance of `got` (interleaved re, im)
// from it.
struct SpectrumError {
  double largest = 0;
  double error = 0;
};
inline SpectrumError spectrum_error(const std::vector<std::complex<double>>& expected,
                                    const std::vector<float>& got) {
  SpectrumError result;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    result.largest = std::max(result.largest, std::abs(expected[i]));
    result.error = std::max(
        result.error, std::abs(expected[i] - std::complex<double>(got[2 * i], got[2 * i + 1])));
  }
  return result;
}

// Runs forward then inverse on `queue` (the inverse ordered after the forward by its event),
// every array `offset` bytes into its buffer, and compares both with the reference.
inline void expect_fft_matches_reference(Device& device, Queue& queue, const FftShape& shape,
                                         std::uint64_t offset = 0) {
  SCOPED_TRACE("FFT of " + shape.describe() + " on " + device.info().id + " at byte " +
               std::to_string(offset));
  const std::uint64_t n = shape.rows * shape.columns;
  const std::vector<float> input = random_floats(shape.batch * n, 7);
  const std::vector<std::complex<double>> expected = naive_half_spectrum(shape, input);
  const std::uint64_t spectrum_floats = shape.spectrum_bytes() / sizeof(float);

  std::shared_ptr<FftPlan> plan = device.plan_fft(shape);
  DeviceBuffer real = upload_at(device, input, offset);
  DeviceBuffer spectrum = device.allocate(offset + shape.spectrum_bytes());
  Event forward = plan->forward(queue, {real, offset}, {spectrum, offset});
  const std::vector<float> got = download_at(device, spectrum, offset, spectrum_floats, forward);

  const auto [largest, error] = spectrum_error(expected, got);
  EXPECT_LE(error, 1e-5 * largest) << "forward: largest reference magnitude " << largest;

  // The inverse of the reference spectrum is n times the input (unnormalised).
  std::vector<float> exact(spectrum_floats);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    exact[2 * i] = static_cast<float>(expected[i].real());
    exact[2 * i + 1] = static_cast<float>(expected[i].imag());
  }
  DeviceBuffer reference = upload_at(device, exact, offset);
  DeviceBuffer back = device.allocate(offset + shape.real_bytes());
  Event inverse = plan->inverse(queue, {reference, offset}, {back, offset}, {&forward, 1});
  const std::vector<float> restored = download_at(device, back, offset, shape.batch * n, inverse);
  double worst = 0;
  for (std::size_t i = 0; i < input.size(); ++i)
    worst = std::max(worst, std::abs(restored[i] - static_cast<double>(n) * input[i]));
  EXPECT_LE(worst, 1e-5 * largest) << "inverse";
}

}  // namespace strata::device::testing
