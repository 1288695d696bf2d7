#include "strata/base/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>

namespace strata {

namespace {

constexpr std::uint64_t uint64_max = std::numeric_limits<std::uint64_t>::max();

// A byte unit and its size in bytes (every factor is an exact integer).
struct ByteUnit {
  std::string_view name;
  std::uint64_t factor;
};

constexpr std::array<ByteUnit, 14> byte_units{{
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

bool all_digits(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; });
}

// Bytes of the fraction 0.<digits> of `factor`, rounded half up, computed exactly: multiplying
// the decimal fraction by `factor` from its last digit on carries the whole bytes out of the
// first digit, and the product's first fractional digit decides the rounding. No step exceeds
// 10 * factor, so nothing overflows however many digits there are.
std::uint64_t fraction_bytes(std::string_view digits, std::uint64_t factor) {
  std::uint64_t carry = 0;
  std::uint64_t first_product_digit = 0;
  for (auto digit = digits.rbegin(); digit != digits.rend(); ++digit) {
    const std::uint64_t product = static_cast<std::uint64_t>(*digit - '0') * factor + carry;
    first_product_digit = product % 10;
    carry = product / 10;
  }
  return carry + (first_product_digit >= 5 ? 1 : 0);
}

// whole * factor + fraction, or out_of_range when that exceeds 64 bits.
ParsedNumber scaled_bytes(std::uint64_t whole, std::uint64_t factor, std::uint64_t fraction) {
  if (whole > (uint64_max - fraction) / factor) return {ParseStatus::out_of_range, 0};
  return {ParseStatus::ok, whole * factor + fraction};
}

}  // namespace

ParsedNumber parse_count_checked(std::string_view text) {
  if (text.empty() || !all_digits(text)) return {ParseStatus::malformed, 0};
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) return {ParseStatus::out_of_range, 0};
  if (ec != std::errc() || ptr != text.data() + text.size()) return {ParseStatus::malformed, 0};
  return {ParseStatus::ok, value};
}

ParsedNumber parse_bytes_checked(std::string_view text) {
  // The number: digits with at most one decimal point, then an optional unit after spaces.
  std::size_t length = 0;
  while (length < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[length])) != 0 || text[length] == '.')) {
    ++length;
  }
  const std::string_view number = text.substr(0, length);
  const std::size_t point = number.find('.');
  const std::string_view whole = number.substr(0, point);
  const std::string_view fraction =
      point == std::string_view::npos ? std::string_view() : number.substr(point + 1);
  if (whole.empty() && fraction.empty()) return {ParseStatus::malformed, 0};
  if (fraction.find('.') != std::string_view::npos) return {ParseStatus::malformed, 0};

  std::string_view unit = text.substr(length);
  while (!unit.empty() && unit.front() == ' ')
    unit.remove_prefix(1);
  const auto found = std::find_if(byte_units.begin(), byte_units.end(),
                                  [&](const ByteUnit& known) { return known.name == unit; });
  if (found == byte_units.end()) return {ParseStatus::malformed, 0};

  const ParsedNumber whole_value =
      whole.empty() ? ParsedNumber{ParseStatus::ok, 0} : parse_count_checked(whole);
  if (whole_value.status != ParseStatus::ok) return whole_value;
  return scaled_bytes(whole_value.value, found->factor, fraction_bytes(fraction, found->factor));
}

std::optional<std::uint64_t> parse_count(std::string_view text) {
  const ParsedNumber parsed = parse_count_checked(text);
  if (parsed.status != ParseStatus::ok) return std::nullopt;
  return parsed.value;
}

std::optional<std::uint64_t> parse_bytes(std::string_view text) {
  const ParsedNumber parsed = parse_bytes_checked(text);
  if (parsed.status != ParseStatus::ok) return std::nullopt;
  return parsed.value;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 5> names{"B", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < names.size()) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.2f} {}", value, names[unit]);
}

std::string format_seconds(double seconds) {
  if (seconds < 1e-6) return fmt::format("{:.0f} ns", seconds * 1e9);
  if (seconds < 1e-3) return fmt::format("{:.2f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

}  // namespace strata
