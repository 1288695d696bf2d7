#pragma once
// Co-clustering (the lightning paper's §4.6, the CGC library's algorithm) as five distributed
// kernels over an m x n matrix Z with row labels (k clusters) and column labels (l clusters).
// Per iteration, three reductions: over all entries (the co-cluster sums and counts), along the
// columns (each row's sums per column cluster) and along the rows (each column's sums per row
// cluster); rows and then columns move to the co-cluster that fits them best under CGC's
// I-divergence, d = sum(Y) - sum(Z log Y) with Y the co-cluster averages (+ epsilon).

#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

// sums[r, c] and counts[r, c]: Z's entries of row cluster r and column cluster c (reduce(+)).
array::ArrayKernel cocluster_block_sums_kernel();
// row_sums[i, c]: the entries of row i in column cluster c (reduce(+) along the columns).
array::ArrayKernel cocluster_row_sums_kernel();
// rows[i]: the row cluster with the least distance of row i to the co-cluster averages.
array::ArrayKernel cocluster_assign_rows_kernel();
// col_sums[j, r]: the entries of column j in row cluster r; row_counts[r]: rows in cluster r.
array::ArrayKernel cocluster_col_sums_kernel();
// cols[j]: the column cluster with the least distance; error[0] += that distance.
array::ArrayKernel cocluster_assign_cols_kernel();

std::vector<array::ArrayKernel> coclustering_kernels();

}  // namespace strata::lightning
