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
