// Every lightning benchmark's CUDA kernel compiled by NVRTC for sm_90 through the CUDA device's
// source generation, with array placements like a superblock's (regions that start past the
// origin, a block offset); runs without a GPU.

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "cuda_compile_check.hpp"
#include "lightning/black_scholes_kernels.hpp"
#include "lightning/coclustering_kernels.hpp"
#include "lightning/gemm_kernels.hpp"
#include "lightning/hotspot_kernels.hpp"
#include "lightning/kmeans_kernels.hpp"
#include "lightning/md5_kernels.hpp"
#include "lightning/nbody_kernels.hpp"
#include "lightning/spmv_kernels.hpp"

namespace strata::device {
// How GoogleTest names a kernel parameter (in test lists and failures): by its name, not a dump.
void PrintTo(const KernelDefinition& kernel, std::ostream* out) {
  *out << "kernel '" << kernel.name() << "'";
}
}  // namespace strata::device

namespace strata::lightning {
namespace {

std::vector<device::KernelDefinition> all_kernels() {
  std::vector<device::KernelDefinition> out;
  for (const auto& set :
       {kmeans_kernels(), black_scholes_kernels(), hotspot_kernels(), gemm_kernels(),
        spmv_kernels(), nbody_kernels(), md5_kernels(), coclustering_kernels()}) {
    for (const auto& kernel : set)
      out.push_back(kernel.definition());
  }
  return out;
}

// A superblock's view: every array a region at (64, 8) of 128 x 16 (rank 1: at 64 of 128), the
// blocks offset by 3.
device::CompileOptions superblock_options(const device::KernelDefinition& kernel) {
  device::CompileOptions options;
  options.block_offset = device::Dim3{3, 0, 0};
  for (const auto& param : kernel.params()) {
    if (!param.is_array) continue;
    device::ArrayPlacement placement;
    placement.offset = param.rank == 1 ? device::Dim3{64, 0, 0} : device::Dim3{64, 8, 0};
    placement.extent = param.rank == 1 ? device::Dim3{128, 1, 1} : device::Dim3{128, 16, 1};
    options.placements.push_back(placement);
  }
  return options;
}

class LightningCudaKernel : public ::testing::TestWithParam<device::KernelDefinition> {};

TEST_P(LightningCudaKernel, CompilesWithNvrtc) {
  const device::KernelDefinition& kernel = GetParam();
  EXPECT_EQ(kernel.cuda_style(), device::KernelStyle::virtual_blocks)
      << "the array front end launches virtual-blocks kernels";
  apps::testing::expect_cuda_compiles(kernel, superblock_options(kernel));
  // As the array front end compiles it: the extents alone, the origins given at launch.
  device::CompileOptions at_launch = superblock_options(kernel);
  at_launch.origins_at_launch = true;
  apps::testing::expect_cuda_compiles(kernel, at_launch);
}

INSTANTIATE_TEST_SUITE_P(Benchmarks, LightningCudaKernel, ::testing::ValuesIn(all_kernels()),
                         [](const auto& test) { return test.param.name(); });

TEST(LightningCudaKernels, EveryBenchmarkHasCudaBesideOpenCl) {
  const auto kernels = all_kernels();
  EXPECT_EQ(kernels.size(), 15u) << "kmeans 3, black_scholes 1, hotspot 1, gemm 1, spmv 1, "
                                    "nbody 1, md5 2, coclustering 5";
  for (const auto& kernel : kernels) {
    EXPECT_FALSE(kernel.opencl_source().empty()) << kernel.name();
    EXPECT_FALSE(kernel.cuda_source().empty()) << kernel.name() << " has no CUDA source";
  }
}

}  // namespace
}  // namespace strata::lightning
