#pragma once
// A reference for numeric settings, shared by the tests of the table's machinery (base) and of
// every layer's settings: a value is accepted iff it lies in the setting's range, then stored
// exactly; otherwise refused with an error naming the setting, the value, its source and range.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <string_view>

#include "strata/base/config.hpp"
#include "strata/base/error.hpp"

namespace strata::testing {

// Numbers of up to 128 bits, so test values can reach past 2^64 without wrapping themselves.
__extension__ using Wide = unsigned __int128;

inline std::string decimal(Wide value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return digits;
}

// A numeric setting as these tests see it: its accepted range and its field, read in 64 bits.
struct NumericSetting {
  std::string_view name;
  bool bytes;  // a byte size (with units) rather than a plain count
  std::uint64_t min;
  std::uint64_t max;
  std::uint64_t (*field)(const Config&);
};

inline constexpr std::uint64_t uint_max = std::numeric_limits<unsigned>::max();
inline constexpr std::uint64_t uint64_max = std::numeric_limits<std::uint64_t>::max();

inline std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Checks one value against the reference: accepted iff `expected` lies in the setting's range,
// then stored exactly (and read back by get() to the same value); otherwise a ConfigError that
// names the setting and the value, and the field keeps its old value.
// Returns whether the value was accepted.
inline bool expect_reference(const NumericSetting& setting, const std::string& text,
                             bool well_formed, Wide expected) {
  Config config;
  const std::uint64_t before = setting.field(config);
  const std::string message = error_of([&] { config.set(setting.name, text, "STRATA_TEST"); });
  if (well_formed && expected >= setting.min && expected <= setting.max) {
    EXPECT_EQ(message, "") << setting.name << " = '" << text << "'";
    EXPECT_EQ(setting.field(config), static_cast<std::uint64_t>(expected))
        << setting.name << " = '" << text << "'";
    if (!message.empty()) return false;
    Config again;
    again.set(setting.name, config.get(setting.name));
    EXPECT_EQ(setting.field(again), setting.field(config))
        << setting.name << " reads back '" << config.get(setting.name) << "'";
    return true;
  }
  EXPECT_NE(message, "") << setting.name << " accepted '" << text << "'";
  EXPECT_TRUE(contains(message, fmt::format("'{}'", setting.name))) << message;
  EXPECT_TRUE(contains(message, fmt::format("'{}'", text))) << message;
  EXPECT_TRUE(contains(message, "STRATA_TEST")) << message;
  if (well_formed) {
    EXPECT_TRUE(contains(message, fmt::format("from {} to {}", setting.min, setting.max)))
        << "names the accepted range: " << message;
  }
  EXPECT_EQ(setting.field(config), before) << "a rejected value leaves the setting as it was";
  return false;
}

// A value around one of the limits that matter for 8- to 64-bit fields, as text and as the
// exact number it means. Byte sizes get a random unit and sometimes a decimal fraction.
struct Candidate {
  std::string text;
  bool well_formed = true;
  Wide value = 0;
};

struct ByteUnit {
  std::string_view name;
  std::uint64_t factor;
};

inline constexpr std::array<ByteUnit, 14> byte_units{{
    {"", 1},
    {"B", 1},
    {"K", 1ull << 10},
    {"KiB", 1ull << 10},
    {"KB", 1'000},
    {"M", 1ull << 20},
    {"MiB", 1ull << 20},
    {"MB", 1'000'000},
    {"G", 1ull << 30},
    {"GiB", 1ull << 30},
    {"GB", 1'000'000'000},
    {"T", 1ull << 40},
    {"TiB", 1ull << 40},
    {"TB", 1'000'000'000'000},
}};

inline Candidate random_candidate(std::mt19937_64& random, bool bytes) {
  static constexpr std::array<int, 8> limit_bits{0, 1, 8, 16, 31, 32, 63, 64};
  const int bits = limit_bits[random() % limit_bits.size()];
  const Wide limit = bits == 0 ? 0 : Wide{1} << bits;
  const auto delta = static_cast<int>(random() % 9) - 4;
  const ByteUnit unit = bytes ? byte_units[random() % byte_units.size()] : ByteUnit{"", 1};
  // The whole number of units nearest the limit, moved by delta; below zero it is negative text.
  const Wide near = limit / unit.factor;
  const bool negative = delta < 0 && near < Wide(-delta);
  const Wide whole = negative     ? Wide(-delta) - near
                     : delta >= 0 ? near + Wide(delta)
                                  : near - Wide(-delta);
  Candidate candidate;
  candidate.text = (negative ? "-" : "") + decimal(whole);
  candidate.value = whole * unit.factor;
  if (!negative && random() % 8 == 0)
    candidate.text.insert(0, "000");  // leading zeros change nothing
  if (bytes && random() % 3 == 0) {
    // A decimal fraction of the unit, rounded half up to whole bytes.
    const int digits = 1 + static_cast<int>(random() % 6);
    Wide scale = 1;
    for (int i = 0; i < digits; ++i)
      scale *= 10;
    const Wide numerator = random() % static_cast<std::uint64_t>(scale);
    std::string fraction = decimal(numerator);
    fraction.insert(0, static_cast<std::size_t>(digits) - fraction.size(), '0');
    candidate.text += "." + fraction;
    candidate.value += (2 * numerator * unit.factor + scale) / (2 * scale);
  }
  if (bytes) candidate.text += (random() % 2 == 0 ? "" : " ") + std::string(unit.name);
  candidate.well_formed = !negative;
  return candidate;
}

// Runs 2000 random values around the type limits through expect_reference(); both outcomes
// must occur often.
inline void expect_random_values_match_reference(const NumericSetting& setting) {
  int accepted = 0;
  int rejected = 0;
  for (const std::uint64_t seed : {14ull, 4294967297ull}) {
    std::mt19937_64 random(seed);
    for (int iteration = 0; iteration < 1000; ++iteration) {
      const Candidate candidate = random_candidate(random, setting.bytes);
      const bool ok =
          expect_reference(setting, candidate.text, candidate.well_formed, candidate.value);
      (ok ? accepted : rejected) += 1;
      if (::testing::Test::HasFailure()) return;  // one clear failure, not thousands
    }
  }
  EXPECT_GT(accepted, 200);
  EXPECT_GT(rejected, 200);
}

// The maximum of the field's type is accepted, one more refused; so are the edges of the range.
inline void expect_limits_match_reference(const NumericSetting& setting) {
  expect_reference(setting, decimal(setting.max), true, setting.max);
  expect_reference(setting, decimal(Wide{setting.max} + 1), true, Wide{setting.max} + 1);
  expect_reference(setting, decimal(setting.min), true, setting.min);
  expect_reference(setting, "0", true, 0);
  if (setting.min > 0) expect_reference(setting, decimal(setting.min - 1), true, setting.min - 1);
  expect_reference(setting, "-1", false, 0);
  expect_reference(setting, "99999999999999999999", true, Wide{99999999999999999ull} * 1000 + 999);
}

}  // namespace strata::testing
