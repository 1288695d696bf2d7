// The CPU backend's FFTs (FFTW3) against the naive DFT, and their errors.
#include <gtest/gtest.h>

#include "fft_check.hpp"
#include "strata/device/backends.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

TEST(CpuFft, ForwardAndInverseMatchTheNaiveDft) {
  auto cpu = make_cpu_device(default_block_runner());
  for (const FftShape& shape : testing::fft_check_shapes())
    testing::expect_fft_matches_reference(*cpu, cpu->queue(QueueKind::compute), shape);
}

TEST(CpuFft, TransformsArraysAtAnOffsetIntoTheirBuffers) {
  auto cpu = make_cpu_device(default_block_runner());
  testing::expect_fft_matches_reference(*cpu, cpu->queue(QueueKind::compute), {6, 10, 2}, 264);
}

TEST(CpuFft, RunsInOrderOnAnyQueueAfterItsEvents) {
  auto cpu = make_cpu_device(default_block_runner());
  testing::expect_fft_matches_reference(*cpu, cpu->queue(QueueKind::host_to_device), {8, 8, 4});
}

TEST(CpuFft, PlansAreKeptPerShape) {
  auto cpu = make_cpu_device(default_block_runner());
  EXPECT_EQ(cpu->plan_fft({4, 8, 2}), cpu->plan_fft({4, 8, 2}));
  EXPECT_NE(cpu->plan_fft({4, 8, 2}), cpu->plan_fft({4, 8, 1}));
}

TEST(CpuFft, RefusesEmptyShapesAndWrongBuffers) {
  auto cpu = make_cpu_device(default_block_runner());
  EXPECT_THROW(cpu->plan_fft({0, 8, 1}), DeviceError);
  EXPECT_THROW(cpu->plan_fft({4, 8, 0}), DeviceError);
  auto plan = cpu->plan_fft({4, 8, 2});
  DeviceBuffer real = cpu->allocate(plan->shape().real_bytes());
  DeviceBuffer small = cpu->allocate(plan->shape().spectrum_bytes() - 4);
  Queue& queue = cpu->queue(QueueKind::compute);
  try {
    plan->forward(queue, real, small);
    FAIL() << "a spectrum buffer too small was accepted";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find("the spectrum array needs"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(plan->forward(queue, real, real), DeviceError);
  DeviceBuffer roomy = cpu->allocate(plan->shape().spectrum_bytes() + 64);
  EXPECT_THROW(plan->forward(queue, real, {roomy, 4}), DeviceError);  // a spectrum at byte 4
  auto other = make_cpu_device(default_block_runner());
  DeviceBuffer spectrum = cpu->allocate(plan->shape().spectrum_bytes());
  EXPECT_THROW(plan->forward(other->queue(QueueKind::compute), real, spectrum), DeviceError);
}

}  // namespace
}  // namespace strata::device
