#pragma once
// Compiles an application kernel's CUDA source with NVRTC, as the CUDA device does
// (generate_cuda_source, then the NVRTC compiler) but for an explicit architecture, so that the
// applications' CUDA kernels are checked on machines without a GPU. Needs the CUDA toolkit.

#include <gtest/gtest.h>

#include <string>

#include "nvrtc_compiler.hpp"  // src/device/cuda
#include "strata/device/device.hpp"
#include "strata/device/kernel.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::apps::testing {

// Compiles `kernel` for sm_90 and checks the CUBIN holds its entry point; NVRTC's error
// (KernelCompileError, with the log) fails the calling test.
inline void expect_cuda_compiles(const device::KernelDefinition& kernel,
                                 const device::CompileOptions& options = {}) {
  SCOPED_TRACE("kernel " + kernel.name());
  ASSERT_TRUE(kernel.implements(device::BackendKind::cuda))
      << "kernel '" << kernel.name() << "' has no CUDA source";
  const device::GeneratedSource generated = device::generate_cuda_source(kernel, options);
  const device::cuda::CudaProgram program{generated.source,
                                          kernel.name(),
                                          "sm_90 (NVRTC only)",
                                          {"sm_90", device::cuda::CudaBinaryFormat::cubin},
                                          ""};
  const std::string cubin = device::cuda::compile_cuda_program(program);
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(cubin.compare(0, 4,
                          "\x7f"
                          "ELF"),
            0)
      << "a CUBIN is an ELF file";
  EXPECT_NE(cubin.find(generated.entry_point), std::string::npos)
      << "the CUBIN lacks the entry point " << generated.entry_point;
}

}  // namespace strata::apps::testing
