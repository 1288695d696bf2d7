#include "strata/base/units.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

namespace strata {

std::optional<std::uint64_t> parse_count(std::string_view text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_bytes(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) != 0 || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  double number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || ptr != text.data() + digits || number < 0) return std::nullopt;

  std::string_view unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ')
    unit.remove_prefix(1);
  static constexpr std::array<std::pair<std::string_view, double>, 14> units{{
      {"", 1.0},
      {"B", 1.0},
      {"K", 1024.0},
      {"KiB", 1024.0},
      {"KB", 1e3},
      {"M", 1024.0 * 1024},
      {"MiB", 1024.0 * 1024},
      {"MB", 1e6},
      {"G", 1024.0 * 1024 * 1024},
      {"GiB", 1024.0 * 1024 * 1024},
      {"GB", 1e9},
      {"T", 1024.0 * 1024 * 1024 * 1024},
      {"TiB", 1024.0 * 1024 * 1024 * 1024},
      {"TB", 1e12},
  }};
  for (const auto& [name, factor] : units) {
    if (unit == name) {
      const double bytes = std::round(number * factor);
      if (bytes > static_cast<double>(std::numeric_limits<std::uint64_t>::max() / 2)) {
        return std::nullopt;
      }
      return static_cast<std::uint64_t>(bytes);
    }
  }
  return std::nullopt;
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
