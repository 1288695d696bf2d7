// Every camera kernel's CUDA body compiles with NVRTC to a CUBIN (no GPU needed), for a current
// and an older architecture.
#include <gtest/gtest.h>

#include "camera/pce_kernels.hpp"
#include "camera/prnu_kernels.hpp"
#include "camera/wiener_kernels.hpp"
#include "nvrtc_compiler.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::apps::camera {
namespace {

TEST(CameraCudaKernels, EveryKernelCompilesWithNvrtc) {
  const device::KernelDefinition* kernels[] = {
      &residual_kernel(),         &zero_mean_rows_kernel(), &zero_mean_columns_kernel(),
      &inverse_norm_kernel(),     &scale_kernel(),          &correlation_kernel(),
      &spectrum_power_kernel(),   &wiener_scale_kernel(),   &cross_spectrum_kernel(),
      &surface_partials_kernel(), &peak_energy_kernel()};
  for (const device::KernelDefinition* kernel : kernels) {
    ASSERT_TRUE(kernel->implements(device::BackendKind::cuda)) << kernel->name();
    for (const char* architecture : {"sm_90", "sm_75"}) {
      SCOPED_TRACE(kernel->name() + " for " + architecture);
      const device::cuda::CudaProgram program{device::generate_cuda_source(*kernel, {}).source,
                                              kernel->name(), "test device",
                                              device::cuda::CudaTarget{architecture}, ""};
      const std::string cubin = device::cuda::compile_cuda_program(program);
      ASSERT_GT(cubin.size(), 4u);
      EXPECT_EQ(cubin.compare(0, 4,
                              "\x7f"
                              "ELF"),
                0)
          << "a CUBIN is an ELF file";
    }
  }
}

}  // namespace
}  // namespace strata::apps::camera
