#pragma once
// Where things lie in the float arrays the registration kernels share: a parsed particle, a
// preprocessed particle (an item's cache slot) and one comparison's state and result. Counts are
// stored as float values (exact below 2^24), never as integer bits in a float.

#include <cstdint>

namespace strata::apps::microscopy::layout {

// Which stage a candidate-scores or select launch serves.
inline constexpr std::uint32_t stage_coarse = 0;  // the grid of rotations
inline constexpr std::uint32_t stage_refine = 1;  // the compass neighbours of the state

// Threads per work-group of the score kernels: one group per rotation candidate.
inline constexpr std::uint32_t group_size = 64;
// Pairs of localizations farther apart than exp(-cutoff) of a Gaussian overlap are skipped.
inline constexpr float overlap_cutoff = 16.0f;

// Parsed particle: [count, x0, y0, sigma0, x1, y1, sigma1, ...].
inline constexpr std::uint32_t parsed_header = 1;

// Preprocessed particle: a header, then x[count], y[count], sigma[count] centred at the
// centroid (structure of arrays, for coalesced reads).
inline constexpr std::uint32_t item_count = 0;
inline constexpr std::uint32_t item_self_l2 = 1;             // GMM L2 overlap with itself
inline constexpr std::uint32_t item_self_bhattacharyya = 2;  // Bhattacharyya overlap with itself
inline constexpr std::uint32_t item_centroid_x = 3;          // the centroid removed (nm)
inline constexpr std::uint32_t item_centroid_y = 4;
inline constexpr std::uint32_t item_header = 8;

// One comparison: the search state (rotation in radians and translation in nm applied to the
// left particle), the result at the optimum, then per candidate of the last stage its score and,
// for the coarse stage, its translation (x, then y), each in an array of candidate_capacity().
inline constexpr std::uint32_t state_angle = 0;
inline constexpr std::uint32_t state_tx = 1;
inline constexpr std::uint32_t state_ty = 2;
inline constexpr std::uint32_t state_angle_step = 3;
inline constexpr std::uint32_t state_translation_step = 4;
inline constexpr std::uint32_t state_best = 5;            // score of the current candidate
inline constexpr std::uint32_t result_score = 8;          // L2 overlap / sqrt(self overlaps)
inline constexpr std::uint32_t result_bhattacharyya = 9;  // the same for Bhattacharyya
inline constexpr std::uint32_t result_raw_l2 = 10;
inline constexpr std::uint32_t result_raw_bhattacharyya = 11;
inline constexpr std::uint32_t candidate_scores = 16;
// The refinement's candidates: every step of -1, 0, +1 in angle, tx and ty; 13 is no move.
inline constexpr std::uint32_t refine_candidates = 27;
inline constexpr std::uint32_t refine_center = 13;

constexpr std::uint64_t parsed_floats(std::uint64_t count) {
  return parsed_header + 3 * count;
}
constexpr std::uint64_t item_floats(std::uint64_t count) {
  return item_header + 3 * count;
}
constexpr std::uint32_t candidate_capacity(std::uint32_t coarse_angles) {
  return coarse_angles > refine_candidates ? coarse_angles : refine_candidates;
}
constexpr std::uint64_t comparison_floats(std::uint32_t coarse_angles) {
  return candidate_scores + 3 * std::uint64_t{candidate_capacity(coarse_angles)};
}

}  // namespace strata::apps::microscopy::layout
