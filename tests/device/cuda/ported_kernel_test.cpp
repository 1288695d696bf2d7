// "Existing CUDA kernels adapt with at most the paper's three changes" (lightning §3.5): the
// ported stencil differs from the original only by them, and compiles through the generated
// wrapper with NVRTC (no GPU needed). gpu_ported_stencil_test.cpp runs it.

#include "ported_kernel.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "nvrtc_compiler.hpp"
#include "strata/device/errors.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::device::cuda {
namespace {

// The file's lines without the leading comment block.
std::vector<std::string> code_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (lines.empty() && line.starts_with("//")) continue;
    lines.push_back(line);
  }
  return lines;
}

void replace_all(std::string& line, const std::string& from, const std::string& to) {
  for (auto at = line.find(from); at != std::string::npos; at = line.find(from, at + to.size()))
    line.replace(at, from.size(), to);
}

TEST(PortedKernel, DiffersFromTheOriginalOnlyByTheThreeChanges) {
  auto original = code_lines(testing::cuda_test_kernel_file("stencil_original.cu"));
  const auto ported = code_lines(testing::cuda_test_kernel_file("stencil_ported.cu"));
  ASSERT_FALSE(original.empty());
  for (auto& line : original) {
    replace_all(line, "__global__", "__device__");                                       // change 1
    replace_all(line, "blockIdx", "virtBlockIdx");                                       // change 2
    replace_all(line, "const float *input", "const strata::Vector<const float> input");  // 3
    replace_all(line, "float *output", "strata::Vector<float> output");                  // change 3
  }
  original.insert(original.begin() + 1, "    dim3 virtBlockIdx,");  // change 2
  EXPECT_EQ(original, ported);
}

CompileOptions worker_constants() {
  CompileOptions options;
  options.block_offset = Dim3{1024, 0, 0};
  options.placements = {ArrayPlacement{Dim3{1024, 0, 0}, Dim3{1024}},   // output
                        ArrayPlacement{Dim3{1023, 0, 0}, Dim3{1026}}};  // input, with halo
  return options;
}

TEST(PortedKernel, CompilesThroughTheGeneratedWrapper) {
  const auto generated = generate_cuda_source(testing::ported_stencil_kernel(), worker_constants());
  const std::string ptx = compile_cuda_program(CudaProgram{
      generated.source, "stencil", "test device", {"compute_80", CudaBinaryFormat::ptx}, ""});
  EXPECT_NE(ptx.find(".entry " + generated.entry_point), std::string::npos) << generated.source;
  const std::string cubin =
      compile_cuda_program(CudaProgram{generated.source, "stencil", "test device", {"sm_90"}, ""});
  EXPECT_FALSE(cubin.empty());
}

TEST(PortedKernel, TheOriginalIsPlainCudaToo) {
  const std::string cubin =
      compile_cuda_program(CudaProgram{testing::cuda_test_kernel_file("stencil_original.cu"),
                                       "stencil",
                                       "test device",
                                       {"sm_90"},
                                       ""});
  EXPECT_FALSE(cubin.empty());
}

TEST(PortedKernel, MatrixParametersCompileWithGlobalIndices) {
  const auto kernel = KernelDefinition("shift")
                          .scalar<std::uint32_t>("width")
                          .array<float>("out", ParamAccess::write, 2)
                          .array<float>("in", ParamAccess::read, 2)
                          .cuda(R"(
__device__ void shift(dim3 block, unsigned width, strata::Matrix<float> out,
                      strata::Matrix<const float> in) {
  const unsigned row = block.y * blockDim.y + threadIdx.y;
  const unsigned col = block.x * blockDim.x + threadIdx.x;
  if (col + 1 < width) out(row, col) = in(row, col + 1) + STRATA_STRIDE_out_0;
}
)",
                                KernelStyle::virtual_blocks);
  CompileOptions options;
  options.block_offset = Dim3{0, 4, 0};
  options.placements = {ArrayPlacement{Dim3{64, 0, 0}, Dim3{64, 128}},
                        ArrayPlacement{Dim3{64, 0, 0}, Dim3{64, 128}}};
  const auto generated = generate_cuda_source(kernel, options);
  EXPECT_NO_THROW(
      compile_cuda_program(CudaProgram{generated.source, "shift", "test device", {"sm_90"}, ""}))
      << generated.source;
}

TEST(PortedKernel, ErrorsInTheUserSourceCountItsOwnLines) {
  const auto kernel = KernelDefinition("oops")
                          .array<float>("v", ParamAccess::write)
                          .cuda(
                              "__device__ void oops(dim3 b, strata::Vector<float> v) {\n"
                              "  v[0] = missing;\n"
                              "}\n",
                              KernelStyle::virtual_blocks);
  const auto generated = generate_cuda_source(kernel, {});
  try {
    compile_cuda_program(CudaProgram{generated.source, "oops", "test device", {"sm_90"}, ""});
    FAIL() << "expected a KernelCompileError";
  } catch (const KernelCompileError& e) {
    EXPECT_NE(e.log().find("oops.cu(2)"), std::string::npos) << e.log();
  }
}

}  // namespace
}  // namespace strata::device::cuda
