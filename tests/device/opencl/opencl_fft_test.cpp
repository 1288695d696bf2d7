// The OpenCL backend's FFTs (clFFT) against the naive DFT.
#include <gtest/gtest.h>

#include "fft_check.hpp"
#include "opencl_test_device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

TEST(OpenClFft, ForwardAndInverseMatchTheNaiveDft) {
  STRATA_REQUIRE_OPENCL(device);
  for (const FftShape& shape : testing::fft_check_shapes())
    testing::expect_fft_matches_reference(device, device.queue(QueueKind::compute), shape);
}

TEST(OpenClFft, TransformsArraysAtAnOffsetIntoTheirBuffers) {
  STRATA_REQUIRE_OPENCL(device);
  // Copied into buffers of their own on the queue: any offset of whole elements, aligned or not.
  for (const std::uint64_t offset : {1024u, 8u})
    testing::expect_fft_matches_reference(device, device.queue(QueueKind::compute), {6, 10, 2},
                                          offset);
}

TEST(OpenClFft, TransformsQueuedBackToBackOnTwoQueuesEachGetTheirOwnResult) {
  STRATA_REQUIRE_OPENCL(device);
  // Every array at an offset, so every transform goes through its queue's staging buffers, which
  // the transforms queued on that queue share: twelve distinct inputs on two queues, enqueued
  // before any is waited for; each spectrum must be its own input's.
  const FftShape shape{6, 10, 1};
  const std::uint64_t offset = 8;
  const std::uint64_t spectrum_floats = shape.spectrum_bytes() / sizeof(float);
  std::shared_ptr<FftPlan> plan = device.plan_fft(shape);
  Queue* queues[] = {&device.queue(QueueKind::compute), &device.queue(QueueKind::host_to_device)};
  std::vector<std::vector<float>> inputs;
  std::vector<DeviceBuffer> reals, spectra;
  std::vector<Event> done;
  for (std::uint64_t i = 0; i < 12; ++i) {
    inputs.push_back(testing::random_floats(shape.rows * shape.columns, 100 + i));
    reals.push_back(testing::upload_at(device, inputs.back(), offset));
    spectra.push_back(device.allocate(offset + shape.spectrum_bytes()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i)
    done.push_back(plan->forward(*queues[i % 2], {reals[i], offset}, {spectra[i], offset}));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<std::complex<double>> expected =
        testing::naive_half_spectrum(shape, inputs[i]);
    const std::vector<float> got =
        testing::download_at(device, spectra[i], offset, spectrum_floats, done[i]);
    const auto [largest, error] = testing::spectrum_error(expected, got);
    EXPECT_LE(error, 1e-5 * largest) << "transform " << i;
  }
}

TEST(OpenClFft, RefusesLengthsClfftCannotFactor) {
  STRATA_REQUIRE_OPENCL(device);
  try {
    device.plan_fft({1, 17, 1});
    FAIL() << "clFFT planned a length of 17";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find("FFT of 17"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace strata::device
