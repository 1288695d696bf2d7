// The CUDA kernels on a GPU give the CPU kernels' results (label gpu; skipped, with the reason,
// without a CUDA device).
#include <gtest/gtest.h>

#include "backend_checks.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy {
namespace {

TEST(MicroscopyCuda, PreprocessAndRegistrationMatchTheCpuKernels) {
  std::string why;
  device::Device* gpu = testing::cuda_test_device(why);
  if (gpu == nullptr) GTEST_SKIP() << why;
  testing::expect_registration_matches_cpu(*gpu);
}

TEST(MicroscopyCuda, CoarseScoresMatchTheCpuKernel) {
  std::string why;
  device::Device* gpu = testing::cuda_test_device(why);
  if (gpu == nullptr) GTEST_SKIP() << why;
  testing::expect_coarse_scores_match_cpu(*gpu);
}

}  // namespace
}  // namespace strata::apps::microscopy
