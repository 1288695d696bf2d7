#include "camera/clustering.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "strata/base/error.hpp"

namespace strata::apps::camera {
namespace {

constexpr double threshold_pce = 60.0;
// Fewest scores below the centre the null distribution's spread is estimated from.
constexpr std::size_t smallest_null_sample = 16;

// Union-find over item indices, with path halving.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t items) : parent_(items) {
    std::iota(parent_.begin(), parent_.end(), std::size_t{0});
  }
  std::size_t find(std::size_t item) {
    while (parent_[item] != item)
      item = parent_[item] = parent_[parent_[item]];
    return item;
  }
  void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<std::size_t> parent_;
};

// z with P(Z > z) = tail for a standard normal Z (bisection on erfc).
double normal_quantile_above(double tail) {
  double low = 0.0, high = 40.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = (low + high) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > tail ? low : high) = mid;
  }
  return (low + high) / 2;
}

double pairs_of(double n) {
  return n * (n - 1.0) / 2.0;
}

}  // namespace

namespace {

// The lower median of `values` (the smaller middle value of an even count); 0 when empty.
float lower_median(std::vector<float> values) {
  if (values.empty()) return 0.0f;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace

MatchThreshold match_threshold(std::uint64_t pixels, std::span<const float> scores) {
  MatchThreshold threshold;
  threshold.white_sigma = static_cast<float>(1.0 / std::sqrt(static_cast<double>(pixels)));
  const double cap = std::sqrt(threshold_pce);
  threshold.pairs = std::max<std::size_t>(scores.size(), 1);
  threshold.sigmas = static_cast<float>(std::min(
      cap, normal_quantile_above(false_match_probability / static_cast<double>(threshold.pairs))));
  // The spread of the scores below `centre` about it.
  const auto measure = [&](float centre) {
    threshold.centre = centre;
    double squares = 0.0;
    threshold.below_centre = 0;
    for (const float score : scores) {
      if (score >= centre) continue;
      const double distance = double{score} - centre;
      squares += distance * distance;
      ++threshold.below_centre;
    }
    threshold.null_sigma = threshold.white_sigma;
    if (threshold.below_centre >= smallest_null_sample)
      threshold.null_sigma = std::max(
          threshold.white_sigma,
          static_cast<float>(std::sqrt(squares / static_cast<double>(threshold.below_centre))));
    threshold.ncc = threshold.centre + threshold.sigmas * threshold.null_sigma;
  };
  const auto centre_of = [&](std::vector<float> values) {
    return std::clamp(lower_median(std::move(values)), 0.0f,
                      static_cast<float>(cap) * threshold.white_sigma);
  };
  // Clipping: the centre of the scores the last threshold leaves as unrelated, until it stays.
  measure(centre_of(std::vector<float>(scores.begin(), scores.end())));
  for (int round = 0; round < 16; ++round) {
    std::vector<float> unrelated;
    for (const float score : scores)
      if (score <= threshold.ncc) unrelated.push_back(score);
    const float centre = centre_of(std::move(unrelated));
    if (centre == threshold.centre) break;
    measure(centre);
  }
  return threshold;
}

std::vector<std::uint32_t> cluster_by_threshold(std::size_t items,
                                                std::span<const ScoredPair> pairs,
                                                float threshold) {
  DisjointSets sets(items);
  for (const ScoredPair& pair : pairs) {
    if (pair.left >= items || pair.right >= items)
      throw Error("camera clustering: a pair names an item beyond the " + std::to_string(items) +
                  " items");
    if (pair.ncc > threshold) sets.join(pair.left, pair.right);
  }
  std::map<std::size_t, std::uint32_t> label_of_root;
  std::vector<std::uint32_t> labels(items);
  for (std::size_t item = 0; item < items; ++item) {
    const auto [it, added] = label_of_root.try_emplace(
        sets.find(item), static_cast<std::uint32_t>(label_of_root.size()));
    labels[item] = it->second;
  }
  return labels;
}

PartitionAgreement compare_partitions(std::span<const std::uint32_t> found,
                                      std::span<const std::uint32_t> truth) {
  if (found.size() != truth.size())
    throw Error("camera evaluation: partitions of different item counts");
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> both;  // contingency table
  std::map<std::uint32_t, double> found_sizes, true_sizes;
  for (std::size_t item = 0; item < found.size(); ++item) {
    both[{found[item], truth[item]}] += 1.0;
    found_sizes[found[item]] += 1.0;
    true_sizes[truth[item]] += 1.0;
  }
  double together_both = 0.0, together_found = 0.0, together_true = 0.0;
  for (const auto& [cell, n] : both)
    together_both += pairs_of(n);
  for (const auto& [label, n] : found_sizes)
    together_found += pairs_of(n);
  for (const auto& [label, n] : true_sizes)
    together_true += pairs_of(n);

  PartitionAgreement agreement;
  agreement.found_groups = found_sizes.size();
  agreement.true_groups = true_sizes.size();
  agreement.identical = both.size() == found_sizes.size() && both.size() == true_sizes.size();
  if (together_found > 0.0) agreement.pair_precision = together_both / together_found;
  if (together_true > 0.0) agreement.pair_recall = together_both / together_true;
  const double all_pairs = pairs_of(static_cast<double>(found.size()));
  const double expected = all_pairs > 0.0 ? together_found * together_true / all_pairs : 0.0;
  const double best = (together_found + together_true) / 2.0;
  agreement.adjusted_rand = best == expected ? 1.0 : (together_both - expected) / (best - expected);
  return agreement;
}

}  // namespace strata::apps::camera
