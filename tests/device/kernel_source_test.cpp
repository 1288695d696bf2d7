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
  EXPECT_NE(s.find("output = output_local + strata_offset_output - 1024ul;"), std::string::npos)
      << s;
  EXPECT_NE(s.find("input = input_local + strata_offset_input - 1023ul;"), std::string::npos) << s;
  // The arrays' offsets in their buffers are the last parameters.
  EXPECT_NE(s.find("ulong strata_offset_output, ulong strata_offset_input)"), std::string::npos)
      << s;
  EXPECT_EQ(generated.array_offset_params, 2u);
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
  EXPECT_EQ(generated.array_offset_params, 0u);
}

// A direct kernel with arrays takes each as its buffer and an element offset: the declared
// names are renamed, an offset per array follows the declared parameters, and inside the body a
// macro restores each name, shifted; lines keep their numbers. Comments and strings with
// brackets or the kernel's name do not mislead the search.
TEST(KernelSource, DirectKernelsTakeEachArrayAsItsBufferAndAnOffset) {
  const std::string user =
      "// axpy(x) { not this one }\n"
      "float twice(float v) { return 2 * v; }\n"
      "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
      "void axpy(uint n, float a, __global const float* restrict xs,\n"
      "          __global float* ys) {\n"
      "  const size_t i = get_global_id(0); /* } */\n"
      "  if (i < n) ys[i] = a * twice(xs[i]) + ys[i];\n"
      "}\n"
      "__kernel void other(__global float* ys) { ys[0] = 1; }\n";
  auto kernel = KernelDefinition("axpy")
                    .scalar<std::uint32_t>("n")
                    .scalar<float>("a")
                    .array<float>("x", ParamAccess::read)
                    .array<float>("y", ParamAccess::read_write)
                    .opencl(user);
  const auto generated = generate_opencl_source(kernel, {});
  const auto& s = generated.source;
  EXPECT_EQ(generated.entry_point, "axpy");
  EXPECT_EQ(generated.array_offset_params, 2u);
  EXPECT_NE(s.find("void axpy(uint n, float a, __global const float* restrict strata_array_xs,\n"
                   "          __global float* strata_array_ys, ulong strata_offset_x, ulong "
                   "strata_offset_y) {\n"
                   "#define xs (strata_array_xs + strata_offset_x)\n"
                   "#define ys (strata_array_ys + strata_offset_y)\n"
                   "#line 5 \"axpy.cl\"\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("#undef xs\n#undef ys\n#line 8 \"axpy.cl\"\n}\n__kernel void other("
                   "__global float* ys) { ys[0] = 1; }"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("#line 1 \"axpy.cl\"\n// axpy(x) { not this one }\nfloat twice"), 0u) << s;
  // Attributes between the parameters and the body are passed over.
  auto attributed = KernelDefinition("k")
                        .array<float>("out", ParamAccess::write)
                        .opencl(
                            "__kernel void k(__global float* out) "
                            "__attribute__((reqd_work_group_size(64, 1, 1))) "
                            "{ out[0] = 1; }");
  EXPECT_EQ(generate_opencl_source(attributed, {}).array_offset_params, 1u);
  EXPECT_NE(
      generate_opencl_source(attributed, {})
          .source.find("__kernel void k(__global float* strata_array_out, ulong strata_offset_out) "
                       "__attribute__((reqd_work_group_size(64, 1, 1))) {\n#define out"),
      std::string::npos)
      << generate_opencl_source(attributed, {}).source;
  // A declaration that does not match the signature is left for the compile to report.
  auto mismatched = KernelDefinition("k")
                        .array<float>("out", ParamAccess::write)
                        .opencl("__kernel void k(__global float* out, uint n) {}");
  EXPECT_EQ(generate_opencl_source(mismatched, {}).array_offset_params, 0u);
  EXPECT_EQ(generate_opencl_source(mismatched, {}).source,
            "__kernel void k(__global float* out, uint n) {}");
}

// With origins at launch only the extents are compiled in: the block offset is a trailing
// parameter, and each array's origin shift too in OpenCL (CUDA's pointers come shifted); two
// workers' programs are the same text.
TEST(KernelSource, OriginsAtLaunchAreTrailingParametersNotConstants) {
  CompileOptions one = worker_constants();
  one.origins_at_launch = true;
  CompileOptions other = one;
  other.block_offset = Dim3{7, 0, 0};
  other.placements[0].offset = Dim3{7 * 1024, 0, 0};
  other.placements[1].offset = Dim3{7 * 1024 - 1, 0, 0};
  const auto cuda = generate_cuda_source(ported_stencil(), one).source;
  EXPECT_EQ(cuda, generate_cuda_source(ported_stencil(), other).source);
  EXPECT_NE(cuda.find("strata_entry_stencil(int n, float* output_local, float* input_local, "
                      "unsigned int strata_block_offset_x, unsigned int strata_block_offset_y, "
                      "unsigned int strata_block_offset_z)"),
            std::string::npos)
      << cuda;
  EXPECT_NE(cuda.find("strata_block(strata_block_offset_x + blockIdx.x"), std::string::npos)
      << cuda;
  EXPECT_NE(cuda.find("output(output_local, output_strides)"), std::string::npos) << cuda;
  EXPECT_EQ(cuda.find("1024"), std::string::npos) << "no offset is baked in:\n" << cuda;
  const auto opencl = generate_opencl_source(ported_stencil(), one).source;
  EXPECT_EQ(opencl, generate_opencl_source(ported_stencil(), other).source);
  EXPECT_NE(opencl.find("uint strata_block_offset_z, long strata_origin_shift_output, long "
                        "strata_origin_shift_input, ulong strata_offset_output, ulong "
                        "strata_offset_input)"),
            std::string::npos)
      << opencl;
  EXPECT_NE(opencl.find("input = input_local + strata_offset_input - strata_origin_shift_input;"),
            std::string::npos)
      << opencl;
  EXPECT_EQ(opencl_origin_parameter_count(ported_stencil(), one, KernelStyle::virtual_blocks), 5u);
  EXPECT_EQ(opencl_origin_parameter_count(ported_stencil(), worker_constants(),
                                          KernelStyle::virtual_blocks),
            0u);
}

// A launch's origins become the block offset and each array's element shift (offsets times the
// compiled extents' strides); mismatches are errors naming the kernel.
TEST(KernelSource, OriginArgumentsShiftByTheCompiledStrides) {
  auto tile = KernelDefinition("tile")
                  .scalar<std::int32_t>("n")
                  .array<float>("m", ParamAccess::read_write, 2)
                  .cuda("__device__ void tile(dim3 b, int n, strata::Matrix<float> m) {}",
                        KernelStyle::virtual_blocks);
  CompileOptions options;
  options.origins_at_launch = true;
  options.placements = {ArrayPlacement{Dim3{0, 0, 0}, Dim3{32, 64}}};
  const CompiledKernel compiled(tile, options);
  KernelArgs args{KernelArg::value(std::int32_t{1})};
  args.origins = LaunchOrigins{Dim3{2, 3, 0}, {Dim3{10, 4, 0}}};
  const auto shifts = launch_shifts(compiled, args, KernelStyle::virtual_blocks);
  ASSERT_TRUE(shifts.has_value());
  EXPECT_EQ(shifts->block_offset, (std::array<std::uint32_t, 3>{2, 3, 0}));
  EXPECT_EQ(shifts->elements, std::vector<std::int64_t>{10 * 64 + 4});
  // Direct-style sources index raw pointers: no origins.
  EXPECT_FALSE(launch_shifts(compiled, args, KernelStyle::direct).has_value());

  const auto refusal = [&](const CompiledKernel& kernel, const KernelArgs& launch) {
    try {
      launch_shifts(kernel, launch, KernelStyle::virtual_blocks);
    } catch (const KernelLaunchError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  KernelArgs none{KernelArg::value(std::int32_t{1})};
  EXPECT_NE(
      refusal(compiled, none).find("kernel 'tile' was compiled to take its origins at launch"),
      std::string::npos);
  const CompiledKernel baked(tile, CompileOptions{});
  EXPECT_NE(refusal(baked, args).find("compiled with its origins baked in"), std::string::npos);
  KernelArgs two{KernelArg::value(std::int32_t{1})};
  two.origins = LaunchOrigins{Dim3{2, 3, 0}, {Dim3{10, 4, 0}, Dim3{0, 0, 0}}};
  EXPECT_NE(refusal(compiled, two).find("gives 2 array origins for its 1 array parameters"),
            std::string::npos);
  KernelArgs far{KernelArg::value(std::int32_t{1})};
  far.origins = LaunchOrigins{Dim3{1ull << 32, 0, 0}, {Dim3{10, 4, 0}}};
  EXPECT_NE(refusal(compiled, far).find("does not fit the 32-bit block index"), std::string::npos);
}

TEST(KernelSource, WrongNumberOfPlacementsIsRefused) {
  CompileOptions options;
  options.placements = {ArrayPlacement{}};
  EXPECT_THROW(generate_cuda_source(ported_stencil(), options), KernelLaunchError);
}

}  // namespace
}  // namespace strata::device
