// The microscopy application's CUDA kernels compiled by NVRTC for sm_90 through the CUDA
// device's source generation; runs without a GPU.

#include <gtest/gtest.h>

#include "cuda_compile_check.hpp"
#include "microscopy/registration_kernels.hpp"

namespace strata::apps::microscopy {
namespace {

TEST(MicroscopyCudaKernels, RegistrationKernelsCompile) {
  const RegistrationKernels& kernels = registration_kernels();
  for (const auto* kernel :
       {&kernels.preprocess, &kernels.candidate_scores, &kernels.select, &kernels.finish})
    testing::expect_cuda_compiles(*kernel);
}

}  // namespace
}  // namespace strata::apps::microscopy
