#include "lightning/coclustering_data.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace strata::lightning {

PlantedMatrix planted_matrix(std::uint64_t m, std::uint64_t n, int k, int l, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> mean(1.0f, 10.0f);
  std::uniform_real_distribution<float> noise(-0.25f, 0.25f);
  std::uniform_int_distribution<int> row_cluster(0, k - 1);
  std::uniform_int_distribution<int> col_cluster(0, l - 1);
  std::vector<float> means(static_cast<std::size_t>(k) * static_cast<std::size_t>(l));
  for (float& value : means)
    value = mean(random);
  PlantedMatrix matrix;
  matrix.row_truth.resize(m);
  matrix.col_truth.resize(n);
  for (auto& label : matrix.row_truth)
    label = row_cluster(random);
  for (auto& label : matrix.col_truth)
    label = col_cluster(random);
  matrix.values.resize(m * n);
  for (std::uint64_t i = 0; i < m; ++i) {
    for (std::uint64_t j = 0; j < n; ++j) {
      const auto r = static_cast<std::size_t>(matrix.row_truth[i]);
      const auto c = static_cast<std::size_t>(matrix.col_truth[j]);
      matrix.values[i * n + j] = means[r * static_cast<std::size_t>(l) + c] + noise(random);
    }
  }
  return matrix;
}

CoclusteringStart coclustering_start(const std::vector<float>& values, std::uint64_t m,
                                     std::uint64_t n, int k, int l) {
  CoclusteringStart start;
  start.rows.resize(m);
  start.cols.resize(n);
  for (std::uint64_t i = 0; i < m; ++i)
    start.rows[i] = static_cast<std::int32_t>(i % static_cast<std::uint64_t>(k));
  for (std::uint64_t j = 0; j < n; ++j)
    start.cols[j] = static_cast<std::int32_t>(j % static_cast<std::uint64_t>(l));
  double total = 0;
  for (const float value : values)
    total += value;
  start.mean = total / static_cast<double>(m * n);
  return start;
}

CoclusteringResult coclustering_reference(const std::vector<float>& values, std::uint64_t m,
                                          std::uint64_t n, int k, int l, int iterations,
                                          double epsilon) {
  const auto ku = static_cast<std::size_t>(k);
  const auto lu = static_cast<std::size_t>(l);
  CoclusteringStart start = coclustering_start(values, m, n, k, l);
  CoclusteringResult result;
  result.rows = std::move(start.rows);
  result.cols = std::move(start.cols);
  const double gavg = start.mean;
  for (int it = 0; it < iterations; ++it) {
    // Co-cluster averages over all entries.
    std::vector<double> sums(ku * lu, 0.0), counts(ku * lu, 0.0);
    for (std::uint64_t i = 0; i < m; ++i) {
      for (std::uint64_t j = 0; j < n; ++j) {
        const std::size_t at = static_cast<std::size_t>(result.rows[i]) * lu +
                               static_cast<std::size_t>(result.cols[j]);
        sums[at] += values[i * n + j];
        counts[at] += 1;
      }
    }
    std::vector<double> y(ku * lu);  // averages + epsilon
    for (std::size_t at = 0; at < y.size(); ++at)
      y[at] = (sums[at] + gavg * epsilon) / (counts[at] + epsilon) + epsilon;
    std::vector<double> columns(lu, 0.0);  // per column cluster
    for (std::uint64_t j = 0; j < n; ++j)
      columns[static_cast<std::size_t>(result.cols[j])] += 1;
    // Rows: sums along the columns per column cluster, then the least distance.
    for (std::uint64_t i = 0; i < m; ++i) {
      std::vector<double> row_sums(lu, 0.0);
      for (std::uint64_t j = 0; j < n; ++j)
        row_sums[static_cast<std::size_t>(result.cols[j])] += values[i * n + j];
      double best = std::numeric_limits<double>::max();
      for (std::size_t r = 0; r < ku; ++r) {
        double distance = 0;
        for (std::size_t c = 0; c < lu; ++c)
          distance += columns[c] * y[r * lu + c] - row_sums[c] * std::log(y[r * lu + c]);
        if (distance < best) {
          best = distance;
          result.rows[i] = static_cast<std::int32_t>(r);
        }
      }
    }
    // Columns: sums along the rows per (new) row cluster, then the least distance.
    std::vector<double> rows_in(ku, 0.0);
    for (std::uint64_t i = 0; i < m; ++i)
      rows_in[static_cast<std::size_t>(result.rows[i])] += 1;
    result.error = 0;
    for (std::uint64_t j = 0; j < n; ++j) {
      std::vector<double> col_sums(ku, 0.0);
      for (std::uint64_t i = 0; i < m; ++i)
        col_sums[static_cast<std::size_t>(result.rows[i])] += values[i * n + j];
      double best = std::numeric_limits<double>::max();
      for (std::size_t c = 0; c < lu; ++c) {
        double distance = 0;
        for (std::size_t r = 0; r < ku; ++r)
          distance += rows_in[r] * y[r * lu + c] - col_sums[r] * std::log(y[r * lu + c]);
        if (distance < best) {
          best = distance;
          result.cols[j] = static_cast<std::int32_t>(c);
        }
      }
      result.error += best;
    }
  }
  return result;
}

bool same_partition(const std::vector<std::int32_t>& labels,
                    const std::vector<std::int32_t>& truth) {
  if (labels.size() != truth.size()) return false;
  std::map<std::int32_t, std::int32_t> forward, backward;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto [f, new_f] = forward.try_emplace(labels[i], truth[i]);
    const auto [b, new_b] = backward.try_emplace(truth[i], labels[i]);
    if (f->second != truth[i] || b->second != labels[i]) return false;
  }
  return true;
}

}  // namespace strata::lightning
