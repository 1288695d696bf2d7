// The phylogeny application's CUDA kernels compiled by NVRTC for sm_90 through the CUDA
// device's source generation; runs without a GPU.

#include <gtest/gtest.h>

#include "cuda_compile_check.hpp"
#include "phylogeny/kernels.hpp"
#include "phylogeny/parallel_vector_kernels.hpp"

namespace strata::apps::phylogeny {
namespace {

TEST(PhylogenyCudaKernels, CorrelationCompiles) {
  testing::expect_cuda_compiles(correlation_kernel());
}

TEST(PhylogenyCudaKernels, ParallelCompositionVectorKernelsCompile) {
  const ParallelVectorKernels kernels;
  for (const auto* kernel :
       {&kernels.clear, &kernels.count, &kernels.measure, &kernels.scan, &kernels.write})
    testing::expect_cuda_compiles(*kernel);
}

}  // namespace
}  // namespace strata::apps::phylogeny
