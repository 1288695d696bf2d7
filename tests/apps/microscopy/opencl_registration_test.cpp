// The OpenCL kernels (PoCL in CI) give the CPU kernels' results; skipped without a device.
#include <gtest/gtest.h>

#include "backend_checks.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy {
namespace {

TEST(MicroscopyOpenCl, PreprocessAndRegistrationMatchTheCpuKernels) {
  std::string why;
  device::Device* opencl = testing::opencl_test_device(why);
  if (opencl == nullptr) GTEST_SKIP() << why;
  testing::expect_registration_matches_cpu(*opencl);
}

TEST(MicroscopyOpenCl, CoarseScoresMatchTheCpuKernel) {
  std::string why;
  device::Device* opencl = testing::opencl_test_device(why);
  if (opencl == nullptr) GTEST_SKIP() << why;
  testing::expect_coarse_scores_match_cpu(*opencl);
}

}  // namespace
}  // namespace strata::apps::microscopy
