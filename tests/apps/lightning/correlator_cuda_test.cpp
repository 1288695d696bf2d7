// The Correlator's CUDA kernel compiles without a GPU: NVRTC builds it through the generated
// virtual-blocks wrapper with one superblock's constants (its block offset and chunk placements),
// as the CUDA device would, to a CUBIN and to PTX naming the entry point.

#include <gtest/gtest.h>

#include "lightning/correlator_data.hpp"
#include "lightning/correlator_kernels.hpp"
#include "nvrtc_compiler.hpp"
#include "strata/device/device.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::lightning {
namespace {

using device::ArrayPlacement;
using device::CompileOptions;
using device::Dim3;
using device::cuda::compile_cuda_program;
using device::cuda::CudaBinaryFormat;
using device::cuda::CudaProgram;

// The second superblock of a launch in chunks of 64 channels: channels 64 to 127 of 256
// antennas x 128 samples, and their 32,896 baselines.
CompileOptions second_superblock() {
  CompileOptions options;
  options.block_offset = Dim3{0, 0, 64};
  options.placements = {ArrayPlacement{Dim3{64, 0, 0}, Dim3{64, 256, 256}},  // x
                        ArrayPlacement{Dim3{64, 0, 0}, Dim3{64, correlator_baselines(256), 2}}};
  return options;
}

TEST(CorrelatorCuda, KernelHasEveryBackend) {
  const array::ArrayKernel kernel = correlator_kernel();
  const auto& definition = kernel.definition();
  EXPECT_TRUE(definition.implements(device::BackendKind::cpu));
  EXPECT_TRUE(definition.implements(device::BackendKind::opencl));
  EXPECT_TRUE(definition.implements(device::BackendKind::cuda));
  EXPECT_EQ(definition.cuda_style(), device::KernelStyle::virtual_blocks);
}

TEST(CorrelatorCuda, CompilesToCubinThroughTheWrapper) {
  const array::ArrayKernel kernel = correlator_kernel();
  const auto generated = device::generate_cuda_source(kernel.definition(), second_superblock());
  // The superblock's constants are baked in: its block offset and the chunks' strides.
  EXPECT_NE(generated.source.find("strata_block(0u + blockIdx.x, 0u + blockIdx.y, 64u + "
                                  "blockIdx.z)"),
            std::string::npos)
      << generated.source;
  EXPECT_NE(generated.source.find("#define STRATA_STRIDE_vis_1 2ull"), std::string::npos)
      << generated.source;
  const std::string cubin = compile_cuda_program(
      CudaProgram{generated.source, "correlate", "test device", {"sm_90"}, ""});
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(cubin.compare(0, 4,
                          "\x7f"
                          "ELF"),
            0)
      << "a CUBIN is an ELF file";
}

TEST(CorrelatorCuda, PtxNamesTheEntryPoint) {
  const array::ArrayKernel kernel = correlator_kernel();
  const auto generated = device::generate_cuda_source(kernel.definition(), second_superblock());
  const std::string ptx = compile_cuda_program(CudaProgram{
      generated.source, "correlate", "test device", {"compute_80", CudaBinaryFormat::ptx}, ""});
  EXPECT_NE(ptx.find(".entry " + generated.entry_point), std::string::npos) << generated.source;
}

}  // namespace
}  // namespace strata::lightning
