#pragma once
// The size of an item cache as a user writes it: bytes ("256MiB") or slots ("40 slots", a slot
// being the application's slot_bytes()), as the settings allpairs_device_cache and
// allpairs_host_cache hold it.

#include <cstdint>
#include <string_view>

namespace strata::allpairs {

// At most one of the two is non-zero; both zero: no size given.
struct CacheSize {
  std::uint64_t bytes = 0;
  std::uint64_t slots = 0;
};

// Parses `text` ("256MiB", "1.5GiB", "40 slots", "40slots", "1 slot"; empty: no size) as the
// value of the setting `name` from `source`. Throws ConfigError naming both when it is neither
// bytes nor slots, 0 bytes, or fewer than 2 slots (a pair needs both its items in the cache).
CacheSize parse_cache_size(std::string_view name, std::string_view text, std::string_view source);

}  // namespace strata::allpairs
