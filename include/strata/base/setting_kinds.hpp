#pragma once
// Typed declarations of settings: a layer names the field of its section struct a setting
// stores into, and gets the parsing, the range checks and the error messages of its kind.
//
//   count_setting<&RuntimeSettings::io_threads>("io_threads", 1, "Worker threads of ...")

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "strata/base/config.hpp"
#include "strata/base/setting.hpp"

namespace strata {

// The error for a value that is not of the setting's kind: "setting 'x' from SOURCE: 'v' is not
// EXPECTED".
[[noreturn]] void setting_malformed(std::string_view name, std::string_view value,
                                    std::string_view source, std::string_view expected);

// A decimal integer in [min, max], checked in 64 bits before any narrowing; throws ConfigError.
std::uint64_t parse_count_setting(std::string_view name, std::string_view value,
                                  std::string_view source, std::uint64_t min, std::uint64_t max);
// A byte size ("4096", "64KiB", "1.5GiB") in [min, max] bytes; throws ConfigError.
std::uint64_t parse_bytes_setting(std::string_view name, std::string_view value,
                                  std::string_view source, std::uint64_t min, std::uint64_t max);
// "on", "true", "yes", "1": true; "off", "false", "no", "0": false; else throws ConfigError.
bool parse_switch_setting(std::string_view name, std::string_view value, std::string_view source);
// A byte size as text that reads back to exactly the same value ("1.00 GiB", "1000000007 B").
std::string exact_bytes_text(std::uint64_t bytes);
// Throws ConfigError unless `value` is one of `choices`.
void check_choice(std::string_view name, std::string_view value, std::string_view source,
                  std::span<const std::string_view> choices);
// Throws ConfigError unless `value` is a non-empty comma-separated list of `choices`.
void check_choice_list(std::string_view name, std::string_view value, std::string_view source,
                       std::span<const std::string_view> choices);

namespace detail {

template <class Pointer>
struct MemberOf;
template <class Section, class Field>
struct MemberOf<Field Section::*> {
  using section = Section;
  using field = Field;
};

template <auto Member>
using SectionOf = typename MemberOf<decltype(Member)>::section;
template <auto Member>
using FieldOf = typename MemberOf<decltype(Member)>::field;

template <auto Member>
constexpr std::uint64_t field_max() {
  using Field = FieldOf<Member>;
  static_assert(std::is_unsigned_v<Field> && sizeof(Field) <= sizeof(std::uint64_t),
                "numeric settings are unsigned, 64 bits at most");
  return std::numeric_limits<Field>::max();
}

}  // namespace detail

// A count: a decimal integer from `min` to `max`, which is at most the largest value of the
// field's type (std::logic_error otherwise).
template <auto Member>
SettingInfo count_setting(std::string_view name, std::uint64_t min, std::uint64_t max,
                          std::string_view help) {
  using Section = detail::SectionOf<Member>;
  using Field = detail::FieldOf<Member>;
  if (min > max || max > detail::field_max<Member>()) {
    throw std::logic_error("count setting '" + std::string(name) + "': bad range");
  }
  return {{},
          name,
          "count",
          help,
          [name, min, max](Config& config, std::string_view value, std::string_view source) {
            config.section<Section>().*Member =
                static_cast<Field>(parse_count_setting(name, value, source, min, max));
          },
          [](const Config& config) { return std::to_string(config.section<Section>().*Member); }};
}

// A count from `min` to the largest value of the field's type.
template <auto Member>
SettingInfo count_setting(std::string_view name, std::uint64_t min, std::string_view help) {
  return count_setting<Member>(name, min, detail::field_max<Member>(), help);
}

// A byte size from `min` bytes to the largest value of the field's type.
template <auto Member>
SettingInfo bytes_setting(std::string_view name, std::uint64_t min, std::string_view help) {
  using Section = detail::SectionOf<Member>;
  using Field = detail::FieldOf<Member>;
  return {{},
          name,
          "bytes",
          help,
          [name, min](Config& config, std::string_view value, std::string_view source) {
            config.section<Section>().*Member = static_cast<Field>(
                parse_bytes_setting(name, value, source, min, detail::field_max<Member>()));
          },
          [](const Config& config) { return exact_bytes_text(config.section<Section>().*Member); }};
}

// Text (a std::string field), checked by `check` when given: it throws ConfigError, usually
// through setting_malformed(). `type` labels it in the docs: "path", "text", "list", ...
template <auto Member>
SettingInfo text_setting(std::string_view name, std::string_view type, std::string_view help,
                         void (*check)(std::string_view name, std::string_view value,
                                       std::string_view source) = nullptr) {
  using Section = detail::SectionOf<Member>;
  static_assert(std::is_same_v<detail::FieldOf<Member>, std::string>);
  return {{},
          name,
          type,
          help,
          [name, check](Config& config, std::string_view value, std::string_view source) {
            if (check != nullptr) check(name, value, source);
            config.section<Section>().*Member = std::string(value);
          },
          [](const Config& config) { return config.section<Section>().*Member; }};
}

// On or off (a bool field): "on", "true", "yes" or "1"; "off", "false", "no" or "0". Reads
// back as "on" or "off".
template <auto Member>
SettingInfo switch_setting(std::string_view name, std::string_view help) {
  using Section = detail::SectionOf<Member>;
  static_assert(std::is_same_v<detail::FieldOf<Member>, bool>);
  return {{},
          name,
          "switch",
          help,
          [name](Config& config, std::string_view value, std::string_view source) {
            config.section<Section>().*Member = parse_switch_setting(name, value, source);
          },
          [](const Config& config) {
            return std::string(config.section<Section>().*Member ? "on" : "off");
          }};
}

// One of a fixed list of words (a std::string field).
template <auto Member>
SettingInfo choice_setting(std::string_view name, std::string_view type,
                           std::initializer_list<std::string_view> choices, std::string_view help) {
  using Section = detail::SectionOf<Member>;
  static_assert(std::is_same_v<detail::FieldOf<Member>, std::string>);
  return {{},
          name,
          type,
          help,
          [name, words = std::vector<std::string_view>(choices)](
              Config& config, std::string_view value, std::string_view source) {
            check_choice(name, value, source, words);
            config.section<Section>().*Member = std::string(value);
          },
          [](const Config& config) { return config.section<Section>().*Member; }};
}

}  // namespace strata
