#include "strata/device/kernel_source.hpp"

#include <gtest/gtest.h>

#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

// The lightning paper's Fig. 7 stencil, ported with the three changes.
KernelDefinition ported_stencil() {
  return KernelDefinition("stencil")
      .scalar<std::int32_t>("n")
      .array<float>("output", ParamAccess::write)
      .array<float>("input", ParamAccess::read)
      .define("WEIGHT", "3.0f")
      .cuda(R"(__device__ void stencil(dim3 virtBlockIdx, int n, strata::Vector<float> output,
                               const strata::Vector<float> input) { /* ... */ })",
            KernelStyle::virtual_blocks)
      .opencl(R"(void stencil(uint3 virt_block, int n, __global float* output,
                      __global const float* input) { /* ... */ })",
              KernelStyle::virtual_blocks);
}

CompileOptions worker_constants() {
  CompileOptions options;
  options.block_offset = Dim3{1024, 0, 0};
  options.placements = {ArrayPlacement{Dim3{1024, 0, 0}, Dim3{1024}},
                        ArrayPlacement{Dim3{1023, 0, 0}, Dim3{1026}}};
  options.defines = {{"EXTRA", "1"}};
  return options;
}

TEST(KernelSource, CudaWrapperBakesInBlockAndArrayOffsets) {
  const auto generated = generate_cuda_source(ported_stencil(), worker_constants());
  EXPECT_EQ(generated.entry_point, "strata_entry_stencil");
  const auto& s = generated.source;
  EXPECT_NE(s.find("#define WEIGHT 3.0f"), std::string::npos) << s;
  EXPECT_NE(s.find("#define EXTRA 1"), std::string::npos) << s;
  EXPECT_NE(s.find("extern \"C\" __global__ void strata_entry_stencil(int n, float* output_local, "
                   "float* input_local)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("const dim3 strata_block(1024u + blockIdx.x, 0u + blockIdx.y"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("output(output_local - 1024ll"), std::string::npos) << s;
  EXPECT_NE(s.find("input(input_local - 1023ll"), std::string::npos) << s;
  EXPECT_NE(s.find("stencil(strata_block, n, output, input);"), std::string::npos) << s;
}

TEST(KernelSource, OpenclWrapperBakesInBlockAndArrayOffsets) {
  const auto generated = generate_opencl_source(ported_stencil(), worker_constants());
  const auto& s = generated.source;
  EXPECT_NE(s.find("__kernel void strata_entry_stencil(int n, __global float* output_local"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("(uint3)(1024u + (uint)get_group_id(0)"), std::string::npos) << s;
  EXPECT_NE(s.find("output = output_local - 1024ul;"), std::string::npos) << s;
  EXPECT_NE(s.find("input = input_local - 1023ul;"), std::string::npos) << s;
}

TEST(KernelSource, TwoDimensionalPlacementShiftsByRowStride) {
  auto kernel = KernelDefinition("tile")
                    .array<float>("m", ParamAccess::read_write, 2)
                    .cuda("__device__ void tile(dim3 b, strata::Matrix<float> m) {}",
                          KernelStyle::virtual_blocks);
  CompileOptions options;
  options.placements = {ArrayPlacement{Dim3{10, 4, 0}, Dim3{32, 64}}};  // rows 10.., cols 4..
  const auto s = generate_cuda_source(kernel, options).source;
  // origin shift = 10 * 64 + 4 = 644; strides {64, 1}
  EXPECT_NE(s.find("m_strides[2] = {64ull, 1ull}"), std::string::npos) << s;
  EXPECT_NE(s.find("m(m_local - 644ll"), std::string::npos) << s;
  EXPECT_NE(s.find("#define STRATA_STRIDE_m_0 64ull"), std::string::npos) << s;
}

TEST(KernelSource, DirectKernelsGetOnlyTheirDefines) {
  auto kernel = KernelDefinition("scale").define("FACTOR", "2").opencl("__kernel void scale() {}");
  const auto generated = generate_opencl_source(kernel, {});
  EXPECT_EQ(generated.entry_point, "scale");
  EXPECT_EQ(generated.source, "#define FACTOR 2\n__kernel void scale() {}");
}

TEST(KernelSource, WrongNumberOfPlacementsIsRefused) {
  CompileOptions options;
  options.placements = {ArrayPlacement{}};
  EXPECT_THROW(generate_cuda_source(ported_stencil(), options), KernelLaunchError);
}

}  // namespace
}  // namespace strata::device
