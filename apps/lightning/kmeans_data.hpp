#pragma once
// K-Means data with planted clusters, and the sequential reference the distributed run is
// checked against.

#include <cstdint>
#include <vector>

namespace strata::lightning {

// `n` points of 4 features around `k` planted centres (point i belongs to cluster i % k), far
// apart compared with the spread, so the first k points seed one centre per planted cluster.
struct PlantedPoints {
  std::vector<float> points;        // n x 4, row-major
  std::vector<std::int32_t> truth;  // the planted cluster of each point
};
PlantedPoints planted_points(std::uint64_t n, int k, std::uint64_t seed);

struct KMeansResult {
  std::vector<float> centres;        // k x 4
  std::vector<std::int32_t> labels;  // n
};
// `iterations` rounds of assign / recompute from the first k points as centres, in order, with
// double-precision sums.
KMeansResult kmeans_reference(const std::vector<float>& points, int k, int iterations);

}  // namespace strata::lightning
