#include "lightning/md5_data.hpp"

#include <cstring>
#include <string>

#include "lightning/md5_kernels.hpp"

namespace strata::lightning {

namespace {

std::uint32_t rotate_left(std::uint32_t x, int s) {
  return (x << s) | (x >> (32 - s));
}

// One 64-byte block into the state, RFC 1321 section 3.4 step by step.
void md5_block(std::array<std::uint32_t, 4>& state, const std::uint8_t* block) {
  std::uint32_t x[16];
  for (int i = 0; i < 16; ++i)
    x[i] = static_cast<std::uint32_t>(block[i * 4]) |
           (static_cast<std::uint32_t>(block[i * 4 + 1]) << 8) |
           (static_cast<std::uint32_t>(block[i * 4 + 2]) << 16) |
           (static_cast<std::uint32_t>(block[i * 4 + 3]) << 24);
  std::uint32_t t[65];
  // T[i] = floor(2^32 * |sin(i)|), the table of section 3.4.
  static constexpr std::uint32_t sines[64] = {
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
      0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
      0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
      0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
      0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
      0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
      0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
      0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
      0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
      0xeb86d391};
  for (int i = 1; i <= 64; ++i)
    t[i] = sines[i - 1];
  std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  const auto f = [](std::uint32_t u, std::uint32_t v, std::uint32_t w) {
    return (u & v) | (~u & w);
  };
  const auto g = [](std::uint32_t u, std::uint32_t v, std::uint32_t w) {
    return (u & w) | (v & ~w);
  };
  const auto h = [](std::uint32_t u, std::uint32_t v, std::uint32_t w) { return u ^ v ^ w; };
  const auto i_ = [](std::uint32_t u, std::uint32_t v, std::uint32_t w) { return v ^ (u | ~w); };
  // [abcd k s i]: a = b + ((a + F(b,c,d) + X[k] + T[i]) <<< s), as the RFC writes the rounds.
  const auto step = [&](auto fn, std::uint32_t& p, std::uint32_t q, std::uint32_t r,
                        std::uint32_t s_, int k, int s,
                        int i) { p = q + rotate_left(p + fn(q, r, s_) + x[k] + t[i], s); };
  for (int i = 0; i < 16; i += 4) {
    step(f, a, b, c, d, i, 7, i + 1);
    step(f, d, a, b, c, i + 1, 12, i + 2);
    step(f, c, d, a, b, i + 2, 17, i + 3);
    step(f, b, c, d, a, i + 3, 22, i + 4);
  }
  for (int i = 0; i < 16; i += 4) {
    step(g, a, b, c, d, (5 * i + 1) % 16, 5, 17 + i);
    step(g, d, a, b, c, (5 * i + 6) % 16, 9, 18 + i);
    step(g, c, d, a, b, (5 * i + 11) % 16, 14, 19 + i);
    step(g, b, c, d, a, (5 * i) % 16, 20, 20 + i);
  }
  for (int i = 0; i < 16; i += 4) {
    step(h, a, b, c, d, (3 * i + 5) % 16, 4, 33 + i);
    step(h, d, a, b, c, (3 * i + 8) % 16, 11, 34 + i);
    step(h, c, d, a, b, (3 * i + 11) % 16, 16, 35 + i);
    step(h, b, c, d, a, (3 * i + 14) % 16, 23, 36 + i);
  }
  for (int i = 0; i < 16; i += 4) {
    step(i_, a, b, c, d, (7 * i) % 16, 6, 49 + i);
    step(i_, d, a, b, c, (7 * i + 7) % 16, 10, 50 + i);
    step(i_, c, d, a, b, (7 * i + 14) % 16, 15, 51 + i);
    step(i_, b, c, d, a, (7 * i + 5) % 16, 21, 52 + i);
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
}

}  // namespace

std::array<std::uint8_t, 16> md5_reference(std::string_view message) {
  // The message, a 1 bit, zeros to 56 bytes mod 64, the length in bits (64-bit little-endian).
  std::string padded(message);
  padded.push_back('\x80');
  while (padded.size() % 64 != 56)
    padded.push_back('\0');
  const std::uint64_t bits = static_cast<std::uint64_t>(message.size()) * 8;
  for (int i = 0; i < 8; ++i)
    padded.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  std::array<std::uint32_t, 4> state{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  for (std::size_t at = 0; at < padded.size(); at += 64)
    md5_block(state, reinterpret_cast<const std::uint8_t*>(padded.data() + at));
  std::array<std::uint8_t, 16> digest{};
  for (int w = 0; w < 4; ++w)
    for (int i = 0; i < 4; ++i)
      digest[static_cast<std::size_t>(w * 4 + i)] =
          static_cast<std::uint8_t>((state[static_cast<std::size_t>(w)] >> (8 * i)) & 0xff);
  return digest;
}

std::array<std::uint32_t, 4> md5_words(const std::array<std::uint8_t, 16>& digest) {
  std::array<std::uint32_t, 4> words{};
  for (std::size_t w = 0; w < 4; ++w)
    for (std::size_t i = 0; i < 4; ++i)
      words[w] |= static_cast<std::uint32_t>(digest[w * 4 + i]) << (8 * i);
  return words;
}

std::array<std::uint32_t, 4> md5_reference_of_index(std::uint64_t index) {
  const std::uint64_t key = md5_key(index);
  char bytes[8];
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>((key >> (8 * i)) & 0xff);
  return md5_words(md5_reference(std::string_view(bytes, 8)));
}

std::uint64_t md5_reference_search(std::uint64_t n, const std::array<std::uint32_t, 4>& target) {
  std::uint64_t found = n;
  for (std::uint64_t i = 0; i < n; ++i)  // every key hashed, as the kernels do
    if (md5_reference_of_index(i) == target && found == n) found = i;
  return found;
}

int md5_rfc_vectors_passed() {
  struct Vector {
    const char* message;
    const char* digest;
  };
  static constexpr Vector vectors[] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
       "d174ab98d277d9f5a5611c2c9f419d9f"},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "57edf4a22be3c955ac49da2e2107b67a"}};
  int passed = 0;
  for (const Vector& vector : vectors) {
    const std::array<std::uint8_t, 16> digest = md5_reference(vector.message);
    std::string hex;
    for (const std::uint8_t byte : digest) {
      constexpr const char* digits = "0123456789abcdef";
      hex.push_back(digits[byte >> 4]);
      hex.push_back(digits[byte & 15]);
    }
    passed += hex == vector.digest ? 1 : 0;
  }
  return passed;
}

}  // namespace strata::lightning
