#include "block_transform.hpp"

namespace strata::cli {

void count_bytes(std::span<const std::uint8_t> bytes, ByteHistogram& histogram) {
  // Four interleaved tables avoid the store-to-load stalls of runs of equal bytes.
  std::array<std::array<std::uint64_t, 256>, 4> partial{};
  std::size_t i = 0;
  for (; i + 4 <= bytes.size(); i += 4) {
    ++partial[0][bytes[i]];
    ++partial[1][bytes[i + 1]];
    ++partial[2][bytes[i + 2]];
    ++partial[3][bytes[i + 3]];
  }
  for (; i < bytes.size(); ++i)
    ++partial[0][bytes[i]];
  for (std::size_t value = 0; value < histogram.size(); ++value) {
    histogram[value] +=
        partial[0][value] + partial[1][value] + partial[2][value] + partial[3][value];
  }
}

std::uint64_t fnv1a(std::span<const std::uint8_t> bytes) {
  constexpr std::uint64_t offset_basis = 14695981039346656037ull;
  constexpr std::uint64_t prime = 1099511628211ull;
  std::uint64_t hash = offset_basis;
  for (std::uint8_t byte : bytes) {
    hash ^= byte;
    hash *= prime;
  }
  return hash;
}

void delta_encode(std::span<std::uint8_t> bytes) {
  for (std::size_t i = bytes.size(); i-- > 1;) {
    bytes[i] = static_cast<std::uint8_t>(bytes[i] - bytes[i - 1]);
  }
}

void delta_decode(std::span<std::uint8_t> bytes) {
  for (std::size_t i = 1; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::uint8_t>(bytes[i] + bytes[i - 1]);
  }
}

void fill_random_walk(std::span<std::uint8_t> bytes, std::uint64_t seed) {
  // splitmix64 supplies 64 random bits; each byte takes a step of -4..+3 from three of them.
  std::uint64_t state = seed;
  std::uint64_t bits = 0;
  int bits_left = 0;
  std::uint8_t level = static_cast<std::uint8_t>(seed * 31);
  for (std::uint8_t& byte : bytes) {
    if (bits_left < 3) {
      std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      bits = z ^ (z >> 31);
      bits_left = 64;
    }
    level = static_cast<std::uint8_t>(level + static_cast<int>(bits & 7u) - 4);
    bits >>= 3;
    bits_left -= 3;
    byte = level;
  }
}

}  // namespace strata::cli
