#pragma once
// GEMM's generated matrices and the sequential reference the distributed run is checked against.

#include <cstdint>
#include <vector>

namespace strata::lightning {

// An n x n f32 matrix (row-major) of entries drawn uniformly from [-1, 1].
std::vector<float> random_matrix(std::uint64_t n, std::uint64_t seed);

// C = A B in double (each product and sum of the f32 entries in double), blocked: 64 rows of C
// at a time updated with panels of 64 rows of B, one thread.
std::vector<double> gemm_reference(const std::vector<float>& a, const std::vector<float>& b,
                                   std::uint64_t n);

// The Euclidean norms of A's rows and of B's columns, in double: by Cauchy-Schwarz,
// sum over k of |A[i, k]| |B[k, j]| <= row_norms[i] * column_norms[j].
std::vector<double> row_norms(const std::vector<float>& a, std::uint64_t n);
std::vector<double> column_norms(const std::vector<float>& b, std::uint64_t n);

}  // namespace strata::lightning
