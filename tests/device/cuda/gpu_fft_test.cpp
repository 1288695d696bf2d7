// The CUDA backend's FFTs (cuFFT) against the naive DFT; skipped without a GPU.
#include <gtest/gtest.h>

#include "fft_check.hpp"
#include "gpu_device.hpp"

namespace strata::device {
namespace {

TEST(CudaFft, ForwardAndInverseMatchTheNaiveDft) {
  STRATA_REQUIRE_CUDA_DEVICE();
  Device& gpu = testing::gpu();
  for (const FftShape& shape : testing::fft_check_shapes())
    testing::expect_fft_matches_reference(gpu, gpu.queue(QueueKind::compute), shape);
  testing::expect_fft_matches_reference(gpu, gpu.queue(QueueKind::compute), {6, 10, 2}, 1024);
}

}  // namespace
}  // namespace strata::device
