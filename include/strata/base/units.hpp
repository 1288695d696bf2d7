#pragma once
// Parsing and printing of byte sizes ("512MiB", "2G") and plain counts.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

// Parses "4096", "64KiB", "1.5GiB", "2G" or "100MB" into bytes; nullopt when malformed.
std::optional<std::uint64_t> parse_bytes(std::string_view text);

// Parses a non-negative decimal integer; nullopt when malformed or out of range.
std::optional<std::uint64_t> parse_count(std::string_view text);

// Formats bytes with a binary unit, e.g. "1.50 GiB".
std::string format_bytes(std::uint64_t bytes);

// Formats a duration in seconds with a fitting unit, e.g. "850 ns", "1.20 ms", "3.4 s".
std::string format_seconds(double seconds);

}  // namespace strata
