#pragma once
// SpMV's generated sparse matrix and vector, and the sequential reference the distributed run is
// checked against.

#include <cstdint>
#include <vector>

namespace strata::lightning {

// An n x n sparse matrix in ELL format (row-major n x max_nnz arrays): every row has max_nnz
// entries at random columns (sorted; a column may repeat, as a padded ELL row's would), values
// drawn from [0.5, 1.5) / max_nnz so that a row sums to about 1 and the chained products neither
// grow nor vanish; the starting vector's entries drawn from [0.5, 1.5).
struct EllMatrix {
  std::uint64_t n = 0;
  std::uint64_t max_nnz = 0;
  std::vector<float> values;
  std::vector<std::int32_t> columns;
};
EllMatrix random_ell_matrix(std::uint64_t n, std::uint64_t max_nnz, std::uint64_t seed);
std::vector<float> random_vector(std::uint64_t n, std::uint64_t seed);

// `iterations` chained products x_(k+1) = A x_k in double from x_0 = x; returns the last.
std::vector<double> spmv_reference(const EllMatrix& matrix, const std::vector<float>& x,
                                   int iterations);

}  // namespace strata::lightning
