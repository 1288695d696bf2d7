#pragma once
// The lightning paper's stencil (Fig. 6 original, Fig. 7 ported) as files and as a Strata
// kernel definition, shared by the unit test (compiles it) and the GPU test (runs it).

#include <string>

#include "strata/device/kernel.hpp"

namespace strata::device::testing {

inline std::string cuda_test_kernel_file(const std::string& name) {
  return KernelDefinition::load_source(std::string(STRATA_CUDA_TEST_KERNELS) + "/" + name,
                                       "stencil");
}

// stencil(i32 n, f32 output[], f32 input[]) from stencil_ported.cu, in the virtual-blocks style.
inline KernelDefinition ported_stencil_kernel() {
  return KernelDefinition("stencil")
      .scalar<std::int32_t>("n")
      .array<float>("output", ParamAccess::write)
      .array<float>("input", ParamAccess::read)
      .cuda(cuda_test_kernel_file("stencil_ported.cu"), KernelStyle::virtual_blocks);
}

}  // namespace strata::device::testing
