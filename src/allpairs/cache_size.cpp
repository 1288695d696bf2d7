#include "strata/allpairs/cache_size.hpp"

#include <optional>

#include "strata/base/setting_kinds.hpp"
#include "strata/base/units.hpp"

namespace strata::allpairs {
namespace {

constexpr std::string_view expected = "bytes (256MiB) or slots (40 slots)";

// The number before " slots", "slots", " slot" or "slot", or nullopt when `text` does not end
// with one of those.
std::optional<std::string_view> slot_count_text(std::string_view text) {
  for (const std::string_view unit : {"slots", "slot"}) {
    if (text.size() > unit.size() && text.ends_with(unit)) {
      std::string_view number = text.substr(0, text.size() - unit.size());
      while (!number.empty() && number.back() == ' ')
        number.remove_suffix(1);
      return number;
    }
  }
  return std::nullopt;
}

}  // namespace

CacheSize parse_cache_size(std::string_view name, std::string_view text, std::string_view source) {
  if (text.empty()) return {};
  if (const auto number = slot_count_text(text)) {
    const auto slots = parse_count(*number);
    if (!slots) setting_malformed(name, text, source, expected);
    if (*slots < 2) {
      setting_malformed(name, text, source,
                        "at least 2 slots (a pair needs both its items in the cache)");
    }
    return {0, *slots};
  }
  const auto bytes = parse_bytes(text);
  if (!bytes) setting_malformed(name, text, source, expected);
  if (*bytes == 0) setting_malformed(name, text, source, "more than 0 bytes, or at least 2 slots");
  return {*bytes, 0};
}

}  // namespace strata::allpairs
