#pragma once
// From pair scores to groups of photos and back to the truth: single-linkage clustering at a
// threshold (connected components of the pairs scoring above it), the threshold itself, and
// agreement between a found partition and the true one (pairwise precision and recall, the
// adjusted Rand index, identity).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace strata::apps::camera {

// One compared pair and its normalized cross-correlation.
struct ScoredPair {
  std::uint32_t left = 0;
  std::uint32_t right = 0;
  float ncc = 0.0f;
};

// The NCC above which two photos are taken to share a camera, and how it was found.
struct MatchThreshold {
  float ncc = 0.0f;                 // the threshold
  float sigmas = 0.0f;              // ... in standard deviations of the null
  float null_sigma = 0.0f;          // standard deviation of the NCC between unrelated patterns
  float white_sigma = 0.0f;         // ... if the patterns were white noise: 1 / sqrt(pixels)
  std::size_t negative_scores = 0;  // scores the null's spread was estimated from
  std::size_t pairs = 0;            // the pairs the threshold guards
};

// The family-wise false-match probability the threshold keeps: the chance that any unrelated
// pair of a run passes it.
inline constexpr double false_match_probability = 1e-3;

// The threshold for photos of `pixels` pixels given every pair's score: z standard deviations
// of the NCC between unrelated patterns, z such that a normal null passes it with probability
// false_match_probability / pairs (Bonferroni over the run's pairs: 3.6 for 6 pairs, 4.9 for
// 1770), at most 7.75 — the NCC whose peak-to-correlation energy would be 60, the decision
// threshold of Goljan, Fridrich and Filler (2009), reached for databases of about 10^11 pairs.
// For white patterns that standard deviation is 1/sqrt(pixels); JPEG compression leaves
// patterns less white and their NCCs more spread, so it
// is estimated from the negative scores — only unrelated patterns give those, symmetrically
// about 0 — as their root mean square (from 16 of them on), never below 1/sqrt(pixels).
MatchThreshold match_threshold(std::uint64_t pixels, std::span<const float> scores);

// The group of each of `items` items (0, 1, ... in order of first appearance) when every pair
// scoring above `threshold` joins its two items' groups.
std::vector<std::uint32_t> cluster_by_threshold(std::size_t items,
                                                std::span<const ScoredPair> pairs, float threshold);

// How a found partition agrees with the true one (both: a group label per item).
struct PartitionAgreement {
  std::size_t found_groups = 0;
  std::size_t true_groups = 0;
  double pair_precision = 1.0;  // pairs grouped together that truly belong together
  double pair_recall = 1.0;     // pairs that belong together and were grouped together
  double adjusted_rand = 1.0;   // 1: identical partitions, about 0: chance agreement
  bool identical = false;       // the same groups, up to their labels
};
PartitionAgreement compare_partitions(std::span<const std::uint32_t> found,
                                      std::span<const std::uint32_t> truth);

}  // namespace strata::apps::camera
