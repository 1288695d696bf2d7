#include "lightning/kmeans_data.hpp"

#include <limits>
#include <random>

#include "lightning/kmeans_kernels.hpp"

namespace strata::lightning {

PlantedPoints planted_points(std::uint64_t n, int k, std::uint64_t seed) {
  constexpr int f_count = kmeans_features;
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> where(0.0f, 1000.0f);
  std::normal_distribution<float> spread(0.0f, 1.0f);
  std::vector<float> planted(static_cast<std::size_t>(k) * f_count);
  for (float& value : planted)
    value = where(random);
  PlantedPoints data;
  data.points.resize(n * f_count);
  data.truth.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::int32_t>(i % static_cast<std::uint64_t>(k));
    data.truth[i] = c;
    for (int f = 0; f < f_count; ++f)
      data.points[i * f_count + f] =
          planted[static_cast<std::size_t>(c) * f_count + f] + spread(random);
  }
  return data;
}

KMeansResult kmeans_reference(const std::vector<float>& points, int k, int iterations) {
  constexpr int f_count = kmeans_features;
  const std::uint64_t n = points.size() / f_count;
  KMeansResult result;
  result.centres.assign(points.begin(), points.begin() + static_cast<std::ptrdiff_t>(k) * f_count);
  result.labels.assign(n, 0);
  for (int it = 0; it < iterations; ++it) {
    std::vector<double> sums(static_cast<std::size_t>(k) * f_count, 0.0);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(k), 0);
    for (std::uint64_t i = 0; i < n; ++i) {
      float best = std::numeric_limits<float>::max();
      int label = 0;
      for (int c = 0; c < k; ++c) {
        float distance = 0;
        for (int f = 0; f < f_count; ++f) {
          const float d = points[i * f_count + f] - result.centres[c * f_count + f];
          distance += d * d;
        }
        if (distance < best) {
          best = distance;
          label = c;
        }
      }
      result.labels[i] = label;
      for (int f = 0; f < f_count; ++f)
        sums[static_cast<std::size_t>(label) * f_count + f] += points[i * f_count + f];
      ++counts[static_cast<std::size_t>(label)];
    }
    for (int c = 0; c < k; ++c) {
      if (counts[c] == 0) continue;
      for (int f = 0; f < f_count; ++f)
        result.centres[c * f_count + f] =
            static_cast<float>(sums[c * f_count + f] / static_cast<double>(counts[c]));
    }
  }
  return result;
}

}  // namespace strata::lightning
