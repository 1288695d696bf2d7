#pragma once
// Parsing and printing of byte sizes ("512MiB", "2G") and plain counts.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

// Binary byte units, for sizes written in code (e.g. 64 * KiB).
inline constexpr std::uint64_t KiB = 1024;
inline constexpr std::uint64_t MiB = 1024 * KiB;
inline constexpr std::uint64_t GiB = 1024 * MiB;

// How parsing a number went: a value, text that is no number, or a number beyond 64 bits.
enum class ParseStatus { ok, malformed, out_of_range };

// A parsed number; `value` holds it only when `status` is ok.
struct ParsedNumber {
  ParseStatus status = ParseStatus::malformed;
  std::uint64_t value = 0;
};

// Parses "4096", "64KiB", "1.5GiB", "2G" or "100MB" into bytes, exactly (integer arithmetic, a
// fraction of a byte rounded half up); tells malformed text from a size above 2^64 - 1 bytes.
ParsedNumber parse_bytes_checked(std::string_view text);

// Parses a non-negative decimal integer; tells malformed text from a number above 2^64 - 1.
ParsedNumber parse_count_checked(std::string_view text);

// parse_bytes_checked() as an optional: nullopt when malformed or out of range.
std::optional<std::uint64_t> parse_bytes(std::string_view text);

// parse_count_checked() as an optional: nullopt when malformed or out of range.
std::optional<std::uint64_t> parse_count(std::string_view text);

// Formats bytes with a binary unit, e.g. "1.50 GiB".
std::string format_bytes(std::uint64_t bytes);

// Formats a duration in seconds with a fitting unit, e.g. "850 ns", "1.20 ms", "3.4 s".
std::string format_seconds(double seconds);

}  // namespace strata
