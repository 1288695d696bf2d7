// The distributed-launch tests' CUDA kernels compiled by NVRTC for sm_90 with a superblock's
// placements (regions past the origin, a block offset): checked without a GPU, where the
// distributed-launch tests themselves reach CUDA only on a GPU machine.

#include <gtest/gtest.h>

#include <vector>

#include "array_launch_support.hpp"
#include "cuda_compile_check.hpp"

namespace strata::array::testing {
namespace {

device::CompileOptions superblock_options(const device::KernelDefinition& kernel) {
  device::CompileOptions options;
  options.block_offset = device::Dim3{2, 1, 0};
  for (const auto& param : kernel.params()) {
    if (!param.is_array) continue;
    device::ArrayPlacement placement;
    placement.offset = param.rank == 1 ? device::Dim3{32, 0, 0} : device::Dim3{16, 8, 0};
    placement.extent = param.rank == 1 ? device::Dim3{96, 1, 1} : device::Dim3{48, 24, 1};
    options.placements.push_back(placement);
  }
  return options;
}

TEST(ArrayLaunchCudaKernels, EveryDeviceKernelCompilesWithNvrtc) {
  int compiled = 0;
  for (const ArrayKernel& kernel : all_kernels()) {
    const device::KernelDefinition& definition = kernel.definition();
    if (!definition.implements(device::BackendKind::opencl)) continue;  // `hold`: CPU only
    device::CompileOptions options = superblock_options(definition);
    apps::testing::expect_cuda_compiles(definition, options);
    options.origins_at_launch = true;  // as the array front end compiles it
    apps::testing::expect_cuda_compiles(definition, options);
    ++compiled;
  }
  EXPECT_EQ(compiled, 6) << "stencil, matmul, scale, column_sums, spread, tally";
}

}  // namespace
}  // namespace strata::array::testing
