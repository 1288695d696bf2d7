#pragma once
// The devices the tests run on: the CPU device, and the first OpenCL device (PoCL in CI) and the
// first CUDA device when this build and machine have one.

#include <memory>
#include <string>

#include "strata/device/device.hpp"

namespace strata::apps::phylogeny::testing {

// A CPU device with its own threads.
std::unique_ptr<device::Device> make_cpu_test_device();

// The first OpenCL device (a memory-only program cache), or null with the reason in `why`.
device::Device* opencl_test_device(std::string* why);

// The first CUDA device (a memory-only program cache), or null with the reason in `why`.
device::Device* cuda_test_device(std::string* why);

}  // namespace strata::apps::phylogeny::testing

// Skips the test unless there is an OpenCL device, then names it `name` (a Device&).
#define PHYLOGENY_REQUIRE_OPENCL(name)                                               \
  std::string phylogeny_opencl_why;                                                  \
  ::strata::device::Device* phylogeny_opencl_device =                                \
      ::strata::apps::phylogeny::testing::opencl_test_device(&phylogeny_opencl_why); \
  if (phylogeny_opencl_device == nullptr) GTEST_SKIP() << phylogeny_opencl_why;      \
  ::strata::device::Device& name = *phylogeny_opencl_device
