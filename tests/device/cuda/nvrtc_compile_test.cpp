// NVRTC compiles without a GPU: the conformance kernels and the compile-error message are
// checked on every machine with the toolkit, for an explicit architecture.

#include <gtest/gtest.h>

#include "conformance_kernels.hpp"
#include "nvrtc_compiler.hpp"
#include "strata/device/errors.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::device::cuda {
namespace {

CudaProgram program_for(const KernelDefinition& kernel, CudaTarget target = {"sm_90"}) {
  return CudaProgram{generate_cuda_source(kernel, {}).source, kernel.name(), "test device",
                     std::move(target), ""};
}

bool is_elf(const std::string& binary) {
  return binary.size() > 4 && binary.compare(0, 4,
                                             "\x7f"
                                             "ELF") == 0;
}

TEST(NvrtcCompile, ConformanceKernelsCompileToCubin) {
  for (const auto& kernel : {testing::vector_add_kernel(), testing::block_sum_kernel(),
                             testing::stencil_2d_kernel(), testing::matmul_kernel()}) {
    SCOPED_TRACE(kernel.name());
    const std::string cubin = compile_cuda_program(program_for(kernel));
    EXPECT_TRUE(is_elf(cubin)) << "a CUBIN is an ELF file";
  }
}

TEST(NvrtcCompile, PtxTargetNamesTheEntryPoint) {
  const std::string ptx = compile_cuda_program(
      program_for(testing::vector_add_kernel(), {"compute_80", CudaBinaryFormat::ptx}));
  EXPECT_NE(ptx.find(".entry vector_add"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.back(), '\0') << "PTX is loaded as a C string";
}

TEST(NvrtcCompile, ErrorNamesKernelBackendDeviceAndLogLine) {
  const auto kernel = KernelDefinition("broken").scalar<float>("x").cuda(
      "extern \"C\" __global__ void broken(float x) {\n"
      "  float y = x;\n"
      "  undeclared_name = y;\n"
      "}\n");
  try {
    compile_cuda_program(program_for(kernel));
    FAIL() << "expected a KernelCompileError";
  } catch (const KernelCompileError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.kernel(), "broken");
    EXPECT_EQ(e.backend(), "cuda");
    EXPECT_NE(what.find("kernel 'broken'"), std::string::npos) << what;
    EXPECT_NE(what.find("backend cuda"), std::string::npos) << what;
    EXPECT_NE(what.find("test device"), std::string::npos) << what;
    EXPECT_NE(what.find("sm_90"), std::string::npos) << what;
    // #line in the generated program: the line counts in the user's source (3), not the
    // program's (which starts with the defines).
    EXPECT_NE(e.log().find("broken.cu(3)"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("undeclared_name"), std::string::npos) << e.log();
    EXPECT_NE(what.find(e.log()), std::string::npos) << "the message carries the log";
  }
}

TEST(NvrtcCompile, FlagsReachTheCompiler) {
  const auto kernel = KernelDefinition("flagged").cuda(
      "#if VALUE != 7\n#error VALUE not passed\n#endif\n"
      "extern \"C\" __global__ void flagged() {}\n");
  auto program = program_for(kernel);
  program.flags = " -DVALUE=7  -lineinfo ";
  EXPECT_TRUE(is_elf(compile_cuda_program(program)));
  program.flags = "";
  EXPECT_THROW(compile_cuda_program(program), KernelCompileError);
}

TEST(NvrtcCompile, UnknownArchitectureIsACompileError) {
  EXPECT_THROW(compile_cuda_program(program_for(testing::vector_add_kernel(), {"sm_1"})),
               KernelCompileError);
}

TEST(NvrtcCompile, TargetIsCubinForKnownAndPtxForNewerArchitectures) {
  const auto archs = nvrtc_architectures();
  ASSERT_FALSE(archs.empty());
  EXPECT_NE(nvrtc_version(), "unknown");
  const CudaTarget hopper = cuda_target_for(9, 0);
  EXPECT_EQ(hopper.arch, "sm_90");
  EXPECT_EQ(hopper.format, CudaBinaryFormat::cubin);
  const CudaTarget future = cuda_target_for(99, 9);
  EXPECT_EQ(future.arch, "compute_" + std::to_string(archs.back()));
  EXPECT_EQ(future.format, CudaBinaryFormat::ptx);
}

}  // namespace
}  // namespace strata::device::cuda
