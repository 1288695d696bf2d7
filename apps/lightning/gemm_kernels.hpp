#pragma once
// GEMM (the lightning paper's §4.2, a handwritten kernel after Volkov et al.) as one distributed
// kernel: C = A B for n x n f32 matrices, one element of C per thread, with A and C cut by rows
// and every superblock reading all of B.

#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

// C[i, j] = sum over k of A[i, k] B[k, j], accumulated in f32; `global [j, i] => read A[i, :],
// read B[:, j], write C[i, j]` (a superblock of whole rows of C reads its rows of A and all of B).
// The CPU implementation computes a block's tile of C at once (panels of k over the tile, the
// row of the tile's accumulators updated with contiguous rows of B); the OpenCL kernel one
// element per work-item.
// Arguments: n, A, B, C (n x n f32 each).
array::ArrayKernel gemm_kernel();

std::vector<array::ArrayKernel> gemm_kernels();

}  // namespace strata::lightning
