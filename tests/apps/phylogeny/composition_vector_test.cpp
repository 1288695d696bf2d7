// Composition vectors against a direct transcription of Qi et al.'s formulas over strings.

#include "phylogeny/composition_vector.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "phylogeny/amino_acids.hpp"
#include "phylogeny/random.hpp"
#include "strata/base/error.hpp"

namespace strata::apps::phylogeny {
namespace {

// Proteins as letters; 'X' is a residue that no k-string may contain.
using Letters = std::vector<std::string>;

Letters random_proteins(std::uint64_t seed, int proteins, int length, double other_rate) {
  Random random(seed);
  // A skewed composition, so that frequencies differ much between strings.
  std::vector<double> weights;
  for (int a = 0; a < amino_acid_count; ++a)
    weights.push_back(1.0 + a * a);
  const DiscreteDistribution pick(weights);
  Letters out;
  for (int p = 0; p < proteins; ++p) {
    std::string protein;
    const auto size = static_cast<int>(random.between(1, static_cast<std::uint64_t>(length)));
    for (int i = 0; i < size; ++i)
      protein += random.uniform() < other_rate ? 'X' : amino_acid_letters[pick(random)];
    out.push_back(protein);
  }
  return out;
}

std::vector<std::uint8_t> codes_of(const Letters& proteins) {
  std::vector<std::uint8_t> out;
  for (const auto& protein : proteins) {
    for (const char c : protein)
      out.push_back(static_cast<std::uint8_t>(residue_code(c)));
    out.push_back(protein_separator);
  }
  return out;
}

// Frequencies of the strings of one length that lie within proteins and avoid 'X'.
std::map<std::string, double> frequencies(const Letters& proteins, std::size_t length) {
  std::map<std::string, double> counts;
  double total = 0;
  for (const auto& protein : proteins)
    for (std::size_t i = 0; i + length <= protein.size(); ++i) {
      const std::string s = protein.substr(i, length);
      if (s.find('X') != std::string::npos) continue;
      counts[s] += 1;
      total += 1;
    }
  for (auto& [s, count] : counts)
    count /= total;
  return counts;
}

std::uint32_t key_of(const std::string& s) {
  std::uint32_t key = 0;
  for (const char c : s)
    key = key * amino_acid_count + static_cast<std::uint32_t>(residue_code(c));
  return key;
}

// Every k-string with p0 > 0 and its normalized (p - p0) / p0, by key.
std::map<std::uint32_t, double> reference_vector(const Letters& proteins, int k) {
  const auto full = frequencies(proteins, static_cast<std::size_t>(k));
  const auto shorter = frequencies(proteins, static_cast<std::size_t>(k - 1));
  const auto middle = frequencies(proteins, static_cast<std::size_t>(k - 2));
  auto lookup = [](const std::map<std::string, double>& m, const std::string& s) {
    const auto it = m.find(s);
    return it == m.end() ? 0.0 : it->second;
  };
  std::map<std::uint32_t, double> vector;
  double norm = 0;
  for (const auto& [prefix, p_prefix] : shorter)
    for (const char last : amino_acid_letters) {
      const std::string s = prefix + last;
      const double p_suffix = lookup(shorter, s.substr(1));
      if (p_suffix == 0) continue;
      const double p0 = p_prefix * p_suffix / lookup(middle, s.substr(1, s.size() - 2));
      const double a = (lookup(full, s) - p0) / p0;
      vector[key_of(s)] = a;
      norm += a * a;
    }
  for (auto& [key, a] : vector)
    a /= std::sqrt(norm);
  return vector;
}

std::vector<std::uint32_t> build(const std::vector<std::uint8_t>& codes, int k) {
  std::vector<std::uint32_t> words(max_vector_bytes(k, codes.size()) / sizeof(std::uint32_t));
  build_composition_vector(codes, k, words);
  return words;
}

TEST(PhylogenyCompositionVector, MatchesTheFormulasOverStrings) {
  for (const int k : {3, 4, 5}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(::testing::Message() << "k " << k << " seed " << seed);
      const Letters proteins = random_proteins(seed, 30, 80, 0.02);
      const auto words = build(codes_of(proteins), k);
      const auto expected = reference_vector(proteins, k);
      const auto entries = vector_entries(words);
      EXPECT_EQ(words[1], static_cast<std::uint32_t>(k));
      ASSERT_EQ(entries.size(), expected.size());
      auto it = expected.begin();
      for (const auto& entry : entries) {
        ASSERT_EQ(entry.key, it->first);
        ASSERT_NEAR(entry.value, it->second, 1e-6);
        ++it;
      }
    }
  }
}

TEST(PhylogenyCompositionVector, IsNormalizedAndCorrelatesWithItselfOnly) {
  const auto a = build(codes_of(random_proteins(1, 50, 100, 0)), 5);
  const auto b = build(codes_of(random_proteins(2, 50, 100, 0)), 5);
  EXPECT_NEAR(vector_correlation(a, a), 1.0, 1e-5);
  EXPECT_NEAR(vector_correlation(a, b), vector_correlation(b, a), 1e-12);
  EXPECT_LT(std::abs(vector_correlation(a, b)), 0.5);
}

TEST(PhylogenyCompositionVector, EntriesStayWithinTheBound) {
  for (const int k : {3, 4, 5, 6, 7}) {
    for (const int length : {2, 5, 40, 400}) {
      const auto codes =
          codes_of(random_proteins(static_cast<std::uint64_t>(k * length), 20, length, 0.01));
      const auto words = build(codes, k);
      EXPECT_LE(words[0], max_vector_entries(k, codes.size())) << k << " " << length;
    }
  }
  EXPECT_EQ(max_vector_entries(3, 1'000'000), 8000u);
  EXPECT_EQ(max_vector_entries(5, 1000), 20'000u);
  EXPECT_EQ(max_vector_bytes(5, 1000), (2 + 2 * 20'000u) * 4);
}

TEST(PhylogenyCompositionVector, ProteinsShorterThanKGiveAnEmptyVector) {
  const auto words = build(codes_of({"AC", "XX", "DE"}), 3);
  EXPECT_EQ(words[0], 0u);
}

TEST(PhylogenyCompositionVector, RefusesAnUnsupportedKAndTooLittleRoom) {
  const auto codes = codes_of(random_proteins(3, 10, 50, 0));
  std::vector<std::uint32_t> words(100);
  EXPECT_THROW(build_composition_vector(codes, 2, words), Error);
  EXPECT_THROW(build_composition_vector(codes, 8, words), Error);
  EXPECT_THROW(build_composition_vector(codes, 5, words), Error);
  EXPECT_THROW(max_vector_entries(9, 10), Error);
}

}  // namespace
}  // namespace strata::apps::phylogeny
