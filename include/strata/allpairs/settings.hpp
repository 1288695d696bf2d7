#pragma once
// The all-pairs front end's settings: its cache sizes, the distributed cache, jobs in flight per
// device, the leaf size of the pair matrix's split and cache-aware stealing. Declared into the
// configuration table by every program that includes this; the engine's options start from them
// (engine.hpp).

#include <cstdint>
#include <string>

namespace strata::allpairs {

struct AllPairsSettings {
  std::string device_cache;       // bytes or slots per device (cache_size.hpp); empty: 90%
  std::string host_cache;         // bytes or slots per process; empty: no item limit
  bool distributed_cache = true;  // ask other ranks' host caches before loading
  unsigned hops = 1;              // candidates asked per distributed cache request (h)
  unsigned jobs_per_device = 16;  // jobs in flight per device (back-pressure)
  std::uint32_t leaf =
      4;  // (an ItemIndex) blocks of at most leaf x leaf pairs are not split further
  bool cache_aware_stealing = true;  // a thief prefers the block whose items it holds
};

// Adds the section "allpairs" to the table (once); true.
bool declare_allpairs_settings();
inline const bool allpairs_settings_declared = declare_allpairs_settings();

}  // namespace strata::allpairs
