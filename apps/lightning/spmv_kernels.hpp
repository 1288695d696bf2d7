#pragma once
// SpMV (the lightning paper's §4.2, after SHOC's) as one distributed kernel: y = A x for a sparse
// n x n matrix in ELL format (each row's entries padded to the same count), one row per thread,
// the matrix cut by rows and the vector read whole (its accesses depend on the data, so the
// annotation overestimates them to all of x, as the paper does).

#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

// y[i] = sum over e < max_nnz of values[i, e] x[columns[i, e]], accumulated in f32 in order of e;
// `global i => read values[i, :], read columns[i, :], read x[:], write y[i]`.
// Arguments: n, max_nnz, values (n x max_nnz f32), columns (n x max_nnz i32), x, y (n f32 each).
array::ArrayKernel spmv_kernel();

std::vector<array::ArrayKernel> spmv_kernels();

}  // namespace strata::lightning
