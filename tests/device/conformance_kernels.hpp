#pragma once
// Four kernels every backend must run alike (vector add, block reduction, 2-D stencil, tiled
// matrix multiply), each with a C++, an OpenCL C and a CUDA implementation.

#include "strata/device/kernel.hpp"

namespace strata::device::testing {

inline constexpr unsigned reduction_block = 256;  // elements summed per block
inline constexpr unsigned matmul_tile = 16;       // tile edge of the matrix multiply

// vector_add(u32 n, f32 a[], f32 b[], f32 c[]): c = a + b.
KernelDefinition vector_add_kernel();
// block_sum(u32 n, u32 input[], u64 partial[]): partial[b] = sum of block b of input.
KernelDefinition block_sum_kernel();
// stencil_2d(u32 width, u32 height, f32 in[], f32 out[]): 5-point average inside, copy on edges.
KernelDefinition stencil_2d_kernel();
// matmul(u32 n, f32 a[], f32 b[], f32 c[]): c = a * b for n x n row-major matrices.
KernelDefinition matmul_kernel();

}  // namespace strata::device::testing
