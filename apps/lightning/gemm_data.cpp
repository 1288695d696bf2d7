#include "lightning/gemm_data.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace strata::lightning {

std::vector<float> random_matrix(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> between(-1.0f, 1.0f);
  std::vector<float> values(n * n);
  for (float& value : values)
    value = between(random);
  return values;
}

std::vector<double> gemm_reference(const std::vector<float>& a, const std::vector<float>& b,
                                   std::uint64_t n) {
  constexpr std::uint64_t rows = 64;
  constexpr std::uint64_t panel = 64;
  std::vector<double> c(n * n, 0.0);
  for (std::uint64_t i0 = 0; i0 < n; i0 += rows) {
    const std::uint64_t i1 = std::min(i0 + rows, n);
    for (std::uint64_t k0 = 0; k0 < n; k0 += panel) {
      const std::uint64_t k1 = std::min(k0 + panel, n);
      for (std::uint64_t i = i0; i < i1; ++i) {
        double* c_i = &c[i * n];
        for (std::uint64_t k = k0; k < k1; ++k) {
          const double a_ik = a[i * n + k];
          const float* b_k = &b[k * n];
          for (std::uint64_t j = 0; j < n; ++j)
            c_i[j] += a_ik * static_cast<double>(b_k[j]);
        }
      }
    }
  }
  return c;
}

std::vector<double> row_norms(const std::vector<float>& a, std::uint64_t n) {
  std::vector<double> norms(n, 0.0);
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t k = 0; k < n; ++k) {
      const double value = a[i * n + k];
      norms[i] += value * value;
    }
    norms[i] = std::sqrt(norms[i]);
  }
  return norms;
}

std::vector<double> column_norms(const std::vector<float>& b, std::uint64_t n) {
  std::vector<double> norms(n, 0.0);
  for (std::uint64_t k = 0; k < n; ++k)
    for (std::uint64_t j = 0; j < n; ++j) {
      const double value = b[k * n + j];
      norms[j] += value * value;
    }
  for (double& norm : norms)
    norm = std::sqrt(norm);
  return norms;
}

}  // namespace strata::lightning
