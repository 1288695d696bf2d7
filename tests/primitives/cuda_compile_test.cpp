// NVRTC compiles every CUDA kernel of the device primitives, for an explicit architecture,
// without a GPU: the CUDA half of the one text each kernel's two device sources come from.

#include <gtest/gtest.h>

#include "nvrtc_compiler.hpp"
#include "primitive_kernels.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::primitives::detail {
namespace {

using device::ElementType;

void expect_compiles(const device::KernelDefinition& kernel) {
  SCOPED_TRACE(kernel.name());
  const device::cuda::CudaProgram program{
      device::generate_cuda_source(kernel, {}).source, kernel.name(), "no device", {"sm_90"}, ""};
  const std::string cubin = device::cuda::compile_cuda_program(program);
  EXPECT_TRUE(cubin.size() > 4 && cubin.compare(0, 4,
                                                "\x7f"
                                                "ELF") == 0);
}

TEST(PrimitivesNvrtc, EveryKernelCompilesToCubin) {
  for (ElementType type : {ElementType::i32, ElementType::u32, ElementType::i64, ElementType::u64,
                           ElementType::f32, ElementType::f64}) {
    expect_compiles(tile_sum_kernel(type));
    expect_compiles(scan_sums_kernel(type));
    expect_compiles(tile_scan_kernel(type));
    expect_compiles(group_sum_kernel(type));
    for (ElementType offset : {ElementType::u32, ElementType::u64}) {
      expect_compiles(segment_tile_kernel(type, offset));
      expect_compiles(segment_combine_kernel(type, offset));
    }
  }
  expect_compiles(join_write_kernel());
  expect_compiles(iota_kernel());
  expect_compiles(group_sizes_kernel());
  expect_compiles(count_flags_kernel());
  for (std::uint32_t bytes : {1u, 2u, 4u, 8u})
    expect_compiles(compact_kernel(bytes));
  for (ElementType key : {ElementType::u32, ElementType::u64}) {
    expect_compiles(order_bits_kernel(key));
    expect_compiles(group_heads_kernel(key));
    expect_compiles(group_assign_kernel(key));
    expect_compiles(radix_histogram_kernel(key));
    expect_compiles(join_ranges_kernel(key));
    for (ElementType value : {ElementType::u8, ElementType::u32, ElementType::u64})
      expect_compiles(radix_scatter_kernel(key, value));
  }
}

}  // namespace
}  // namespace strata::primitives::detail
