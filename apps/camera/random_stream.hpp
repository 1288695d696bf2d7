#pragma once
// RandomStream: a small deterministic random number generator (xoshiro256**, seeded through
// splitmix64) with uniform and normal draws. Unlike <random>'s distributions it does not depend
// on the standard library, so a generator seed names the same data set with any compiler.

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace strata::apps::camera {

// One stream of random numbers, keyed by a seed and any number of stream ids (e.g. an image
// index), so independent streams can be drawn in any order or in parallel.
class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::initializer_list<std::uint64_t> stream_ids) {
    std::uint64_t mix = splitmix(seed);
    for (std::uint64_t id : stream_ids)
      mix = splitmix(mix ^ splitmix(id + 0x9e3779b97f4a7c15ull));
    for (std::uint64_t& word : state_)
      word = mix = splitmix(mix);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotate(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotate(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform integer in [0, bound).
  std::uint64_t below(std::uint64_t bound) {
    return static_cast<std::uint64_t>(uniform() * static_cast<double>(bound)) % bound;
  }
  // Standard normal (Marsaglia's polar method; the second value of each pair is kept for the
  // next call).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u = 0.0, v = 0.0, s = 0.0;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

 private:
  static std::uint64_t rotate(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }

  std::uint64_t state_[4]{};
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace strata::apps::camera
