#pragma once
// Co-clustering data with planted co-clusters, and the sequential reference (double precision)
// the distributed run is checked against.

#include <cstdint>
#include <vector>

namespace strata::lightning {

// An m x n matrix of positive values: each row in one of k planted row clusters, each column in
// one of l column clusters, an entry the mean of its co-cluster (in [1, 10]) plus small noise.
struct PlantedMatrix {
  std::vector<float> values;  // m x n, row-major
  std::vector<std::int32_t> row_truth;
  std::vector<std::int32_t> col_truth;
};
PlantedMatrix planted_matrix(std::uint64_t m, std::uint64_t n, int k, int l, std::uint64_t seed);

// Where CGC's iterations start: rows[i] = i % k, cols[j] = j % l, and the matrix's mean (the
// global average of the I-divergence).
struct CoclusteringStart {
  std::vector<std::int32_t> rows;
  std::vector<std::int32_t> cols;
  double mean = 0;
};
CoclusteringStart coclustering_start(const std::vector<float>& values, std::uint64_t m,
                                     std::uint64_t n, int k, int l);

struct CoclusteringResult {
  std::vector<std::int32_t> rows;  // m labels in [0, k)
  std::vector<std::int32_t> cols;  // n labels in [0, l)
  double error = 0;                // the last iteration's sum of the columns' least distances
};
// CGC's iterations from coclustering_start().
CoclusteringResult coclustering_reference(const std::vector<float>& values, std::uint64_t m,
                                          std::uint64_t n, int k, int l, int iterations,
                                          double epsilon);

// Whether `labels` are `truth` up to the clusters' numbering.
bool same_partition(const std::vector<std::int32_t>& labels,
                    const std::vector<std::int32_t>& truth);

}  // namespace strata::lightning
