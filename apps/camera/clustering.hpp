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
  float ncc = 0.0f;              // the threshold: centre + sigmas * null_sigma
  float centre = 0.0f;           // where the NCCs of unrelated patterns lie
  float sigmas = 0.0f;           // standard deviations of the null above the centre
  float null_sigma = 0.0f;       // standard deviation of the NCC between unrelated patterns
  float white_sigma = 0.0f;      // ... if the patterns were white noise: 1 / sqrt(pixels)
  std::size_t below_centre = 0;  // scores below the centre, the null's spread's sample
  std::size_t pairs = 0;         // the pairs the threshold guards
};

// The family-wise false-match probability the threshold keeps: the chance that any unrelated
// pair of a run passes it.
inline constexpr double false_match_probability = 1e-3;

// The threshold for photos of `pixels` pixels given every pair's score: the centre of the
// unrelated pairs' NCCs plus z standard deviations of them, z such that a normal null passes it
// with probability false_match_probability / pairs (Bonferroni over the run's pairs: 3.6 for 6
// pairs, 4.9 for 1770), at most 7.75 — the NCC whose peak-to-correlation energy would be 60, the
// decision threshold of Goljan, Fridrich and Filler (2009), reached for databases of about
// 10^11 pairs.
// The centre: artefacts every camera of a model shares and the filters do not remove wholly
// move unrelated scores above 0. It is the (lower) median of the scores below the threshold,
// found by clipping: first the median of all scores, then of those the threshold it gives leaves
// below it, until it stays; at least 0 and at most 7.75 white-noise standard deviations (a set of
// one camera, where every pair matches, keeps its matches).
// The spread: for white patterns 1/sqrt(pixels); JPEG compression leaves patterns less white and
// their NCCs more spread, so it is estimated from the scores below the centre — only unrelated
// patterns give those, symmetrically about it — as their root mean square distance from it (from
// 16 of them on), never below 1/sqrt(pixels).
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
