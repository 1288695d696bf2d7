#include "phylogeny/composition_vector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "phylogeny/amino_acids.hpp"
#include "strata/base/error.hpp"

namespace strata::apps::phylogeny {
namespace {

std::uint64_t power_of_20(int exponent) {
  std::uint64_t value = 1;
  for (int i = 0; i < exponent; ++i)
    value *= amino_acid_count;
  return value;
}

void check_k(int k) {
  if (k < shortest_k || k > longest_k)
    throw Error(
        fmt::format("composition vectors: k = {} is outside {}..{}", k, shortest_k, longest_k));
}

// The distinct strings of one length with their counts, keys ascending, and the total count.
struct StringCounts {
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> counts;
  std::uint64_t total = 0;

  // Count of `key`, 0 if never seen.
  std::uint32_t count_of(std::uint32_t key) const {
    const auto it = std::lower_bound(keys.begin(), keys.end(), key);
    return it != keys.end() && *it == key ? counts[static_cast<std::size_t>(it - keys.begin())] : 0;
  }
};

StringCounts count_strings(std::vector<std::uint32_t> windows) {
  std::sort(windows.begin(), windows.end());
  StringCounts out;
  out.total = windows.size();
  for (std::size_t i = 0; i < windows.size();) {
    std::size_t j = i + 1;
    while (j < windows.size() && windows[j] == windows[i])
      ++j;
    out.keys.push_back(windows[i]);
    out.counts.push_back(static_cast<std::uint32_t>(j - i));
    i = j;
  }
  return out;
}

// Every window of `length` standard residues (within a protein), as base-20 keys.
std::vector<std::uint32_t> windows_of(std::span<const std::uint8_t> residues, int length) {
  const std::uint64_t modulus = power_of_20(length);
  std::vector<std::uint32_t> windows;
  windows.reserve(residues.size());
  std::uint64_t key = 0;
  int run = 0;  // standard residues in a row so far
  for (const std::uint8_t code : residues) {
    if (code >= amino_acid_count) {
      run = 0;
      key = 0;
      continue;
    }
    key = (key * amino_acid_count + code) % modulus;
    if (++run >= length) windows.push_back(static_cast<std::uint32_t>(key));
  }
  return windows;
}

}  // namespace

std::uint64_t max_vector_entries(int k, std::uint64_t residues) {
  check_k(k);
  return std::min<std::uint64_t>(power_of_20(k), amino_acid_count * residues);
}

std::uint64_t max_vector_bytes(int k, std::uint64_t residues) {
  return (vector_header_words + 2 * max_vector_entries(k, residues)) * sizeof(std::uint32_t);
}

std::uint32_t build_composition_vector(std::span<const std::uint8_t> residues, int k,
                                       std::span<std::uint32_t> out) {
  check_k(k);
  if (out.size() < vector_header_words) throw Error("composition vector: no room for the header");
  const StringCounts full = count_strings(windows_of(residues, k));
  const StringCounts shorter = count_strings(windows_of(residues, k - 1));
  const StringCounts middle = count_strings(windows_of(residues, k - 2));
  const std::uint64_t middle_keys = power_of_20(k - 2);
  const std::uint64_t capacity = (out.size() - vector_header_words) / 2;

  // Keys come out ascending: prefixes ascending, then the last letter ascending.
  std::vector<std::uint32_t> keys;
  std::vector<double> values;
  std::size_t full_at = 0;
  double norm = 0;
  for (std::size_t s = 0; s < shorter.keys.size(); ++s) {
    const std::uint32_t prefix = shorter.keys[s];
    const auto inner = static_cast<std::uint32_t>(prefix % middle_keys);
    const double middle_frequency =
        static_cast<double>(middle.count_of(inner)) / static_cast<double>(middle.total);
    const double prefix_frequency =
        static_cast<double>(shorter.counts[s]) / static_cast<double>(shorter.total);
    // The suffixes a2..ak that start with the middle: keys inner*20 .. inner*20+19.
    const std::uint32_t first_suffix = inner * amino_acid_count;
    auto suffix = std::lower_bound(shorter.keys.begin(), shorter.keys.end(), first_suffix);
    for (; suffix != shorter.keys.end() && *suffix < first_suffix + amino_acid_count; ++suffix) {
      const double suffix_frequency =
          static_cast<double>(
              shorter.counts[static_cast<std::size_t>(suffix - shorter.keys.begin())]) /
          static_cast<double>(shorter.total);
      const double predicted = prefix_frequency * suffix_frequency / middle_frequency;
      const std::uint32_t key = prefix * amino_acid_count + (*suffix - first_suffix);
      while (full_at < full.keys.size() && full.keys[full_at] < key)
        ++full_at;
      const std::uint32_t count =
          full_at < full.keys.size() && full.keys[full_at] == key ? full.counts[full_at] : 0;
      const double frequency =
          full.total > 0 ? static_cast<double>(count) / static_cast<double>(full.total) : 0.0;
      const double value = frequency / predicted - 1.0;
      norm += value * value;
      keys.push_back(key);
      values.push_back(value);
    }
  }
  if (keys.size() > capacity)
    throw Error(fmt::format("composition vector: {} entries do not fit in room for {}", keys.size(),
                            capacity));
  const double scale = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
  out[0] = static_cast<std::uint32_t>(keys.size());
  out[1] = static_cast<std::uint32_t>(k);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto value = static_cast<float>(values[i] * scale);
    out[vector_header_words + 2 * i] = keys[i];
    out[vector_header_words + 2 * i + 1] = std::bit_cast<std::uint32_t>(value);
  }
  return static_cast<std::uint32_t>(keys.size());
}

std::vector<VectorEntry> vector_entries(std::span<const std::uint32_t> words) {
  if (words.size() < vector_header_words) throw Error("composition vector: no header");
  const std::uint64_t count = words[0];
  if (vector_header_words + 2 * count > words.size())
    throw Error(fmt::format("composition vector: {} entries in {} words", count, words.size()));
  std::vector<VectorEntry> entries(count);
  for (std::size_t i = 0; i < count; ++i) {
    entries[i].key = words[vector_header_words + 2 * i];
    entries[i].value = std::bit_cast<float>(words[vector_header_words + 2 * i + 1]);
  }
  return entries;
}

double vector_correlation(std::span<const std::uint32_t> left,
                          std::span<const std::uint32_t> right) {
  const auto a = vector_entries(left);
  const auto b = vector_entries(right);
  double sum = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].key < b[j].key) {
      ++i;
    } else if (b[j].key < a[i].key) {
      ++j;
    } else {
      sum += static_cast<double>(a[i].value) * static_cast<double>(b[j].value);
      ++i;
      ++j;
    }
  }
  return sum;
}

}  // namespace strata::apps::phylogeny
