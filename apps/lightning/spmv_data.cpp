#include "lightning/spmv_data.hpp"

#include <algorithm>
#include <random>

namespace strata::lightning {

EllMatrix random_ell_matrix(std::uint64_t n, std::uint64_t max_nnz, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::int32_t> column(0, static_cast<std::int32_t>(n - 1));
  const float scale = 1.0f / static_cast<float>(max_nnz);
  std::uniform_real_distribution<float> value(0.5f * scale, 1.5f * scale);
  EllMatrix matrix;
  matrix.n = n;
  matrix.max_nnz = max_nnz;
  matrix.values.resize(n * max_nnz);
  matrix.columns.resize(n * max_nnz);
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto row = static_cast<std::ptrdiff_t>(i * max_nnz);
    for (std::uint64_t e = 0; e < max_nnz; ++e) {
      matrix.values[i * max_nnz + e] = value(random);
      matrix.columns[i * max_nnz + e] = column(random);
    }
    std::sort(matrix.columns.begin() + row,
              matrix.columns.begin() + row + static_cast<std::ptrdiff_t>(max_nnz));
  }
  return matrix;
}

std::vector<float> random_vector(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> between(0.5f, 1.5f);
  std::vector<float> values(n);
  for (float& value : values)
    value = between(random);
  return values;
}

std::vector<double> spmv_reference(const EllMatrix& matrix, const std::vector<float>& x,
                                   int iterations) {
  std::vector<double> current(x.begin(), x.end());
  std::vector<double> next(matrix.n);
  for (int it = 0; it < iterations; ++it) {
    for (std::uint64_t i = 0; i < matrix.n; ++i) {
      double sum = 0;
      for (std::uint64_t e = 0; e < matrix.max_nnz; ++e) {
        const std::uint64_t at = i * matrix.max_nnz + e;
        sum += static_cast<double>(matrix.values[at]) *
               current[static_cast<std::uint64_t>(matrix.columns[at])];
      }
      next[i] = sum;
    }
    current.swap(next);
  }
  return current;
}

}  // namespace strata::lightning
