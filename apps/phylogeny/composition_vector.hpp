#pragma once
// Composition vectors (Qi, Wang and Hao 2004): for every k-string a of a proteome, its frequency
// p(a) against the prediction of a Markov model of order k-2,
//   p0(a1..ak) = p(a1..ak-1) p(a2..ak) / p(a2..ak-1),
// as a(a) = (p(a) - p0(a)) / p0(a) for every k-string with p0 > 0, normalized to length 1.
// Frequencies count windows within proteins over the 20 standard amino acids only.
//
// A vector is sparse, in 32-bit words: [entry count, k, then per entry (key, value bits)] with
// keys (the k-string in base 20, first residue most significant) ascending and float values.

#include <cstdint>
#include <span>
#include <vector>

namespace strata::apps::phylogeny {

inline constexpr int shortest_k = 3;
inline constexpr int longest_k = 7;  // 20^7 keys still fit in 32 bits

// Words before the entries.
inline constexpr std::uint64_t vector_header_words = 2;

// An upper bound on the entries of the vector of `residues` parsed codes: each entry is an
// observed (k-1)-string followed by one of 20 letters, and there are at most as many
// (k-1)-strings as residues; and there are 20^k k-strings.
std::uint64_t max_vector_entries(int k, std::uint64_t residues);
// Bytes of a vector with room for max_vector_entries(k, residues).
std::uint64_t max_vector_bytes(int k, std::uint64_t residues);

// Builds the vector of parsed residue codes (see amino_acids.hpp) into `out`; returns its entry
// count. Throws strata::Error for an unsupported k or an `out` too small.
std::uint32_t build_composition_vector(std::span<const std::uint8_t> residues, int k,
                                       std::span<std::uint32_t> out);

// One entry, as read back.
struct VectorEntry {
  std::uint32_t key = 0;
  float value = 0;
};
// The entries of a vector in its word layout.
std::vector<VectorEntry> vector_entries(std::span<const std::uint32_t> words);

// The correlation (dot product) of two vectors: the reference the compare kernels match.
double vector_correlation(std::span<const std::uint32_t> left,
                          std::span<const std::uint32_t> right);

}  // namespace strata::apps::phylogeny
