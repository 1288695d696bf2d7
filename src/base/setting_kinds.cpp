#include "strata/base/setting_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "strata/base/error.hpp"
#include "strata/base/units.hpp"

namespace strata {
namespace {

// The error for a well-formed number outside the setting's range: names the range, so a value
// that would wrap around when narrowed to the field's type is refused, never stored.
[[noreturn]] void out_of_range(std::string_view name, std::string_view value,
                               std::string_view source, std::string_view expected) {
  throw ConfigError(std::string(name),
                    fmt::format("setting '{}' from {}: '{}' is out of range: expected {}", name,
                                source, value, expected));
}

// Checks, in 64 bits and before any narrowing, that `parsed` lies in [min, max].
std::uint64_t in_range(std::string_view name, std::string_view value, std::string_view source,
                       const ParsedNumber& parsed, std::uint64_t min, std::uint64_t max,
                       std::string_view kind) {
  if (parsed.status != ParseStatus::ok || parsed.value < min || parsed.value > max) {
    out_of_range(name, value, source, fmt::format("{} from {} to {}", kind, min, max));
  }
  return parsed.value;
}

std::string listed(std::span<const std::string_view> choices) {
  std::string text;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    text += fmt::format("{}{}", i == 0 ? "" : ", ", choices[i]);
  }
  return text;
}

}  // namespace

void setting_malformed(std::string_view name, std::string_view value, std::string_view source,
                       std::string_view expected) {
  throw ConfigError(std::string(name), fmt::format("setting '{}' from {}: '{}' is not {}", name,
                                                   source, value, expected));
}

std::uint64_t parse_count_setting(std::string_view name, std::string_view value,
                                  std::string_view source, std::uint64_t min, std::uint64_t max) {
  const ParsedNumber parsed = parse_count_checked(value);
  if (parsed.status == ParseStatus::malformed) {
    setting_malformed(name, value, source,
                      min == 0 ? "a non-negative integer" : fmt::format("an integer >= {}", min));
  }
  return in_range(name, value, source, parsed, min, max, "an integer");
}

std::uint64_t parse_bytes_setting(std::string_view name, std::string_view value,
                                  std::string_view source, std::uint64_t min, std::uint64_t max) {
  const ParsedNumber parsed = parse_bytes_checked(value);
  if (parsed.status == ParseStatus::malformed) {
    setting_malformed(name, value, source, "a byte size like 1GiB");
  }
  return in_range(name, value, source, parsed, min, max, "a number of bytes");
}

bool parse_switch_setting(std::string_view name, std::string_view value, std::string_view source) {
  constexpr std::array<std::string_view, 4> on{"on", "true", "yes", "1"};
  constexpr std::array<std::string_view, 4> off{"off", "false", "no", "0"};
  if (std::find(on.begin(), on.end(), value) != on.end()) return true;
  if (std::find(off.begin(), off.end(), value) != off.end()) return false;
  setting_malformed(name, value, source, "on or off");
}

std::string exact_bytes_text(std::uint64_t bytes) {
  std::string text = format_bytes(bytes);
  if (parse_bytes(text) != bytes) text = fmt::format("{} B", bytes);
  return text;
}

void check_choice(std::string_view name, std::string_view value, std::string_view source,
                  std::span<const std::string_view> choices) {
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    setting_malformed(name, value, source, fmt::format("one of {}", listed(choices)));
  }
}

void check_choice_list(std::string_view name, std::string_view value, std::string_view source,
                       std::span<const std::string_view> choices) {
  const std::string expected = fmt::format("a comma-separated list of {}", listed(choices));
  if (value.empty()) setting_malformed(name, value, source, expected);
  std::string_view rest = value;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    if (std::find(choices.begin(), choices.end(), rest.substr(0, comma)) == choices.end()) {
      setting_malformed(name, value, source, expected);
    }
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
}

}  // namespace strata
