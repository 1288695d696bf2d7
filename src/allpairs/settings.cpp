#include "strata/allpairs/settings.hpp"

#include <string_view>

#include "strata/allpairs/cache_size.hpp"
#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"

namespace strata::allpairs {
namespace {

void check_cache_size(std::string_view name, std::string_view value, std::string_view source) {
  parse_cache_size(name, value, source);
}

}  // namespace

bool declare_allpairs_settings() {
  return declare_settings(
      {"allpairs",
       Layer::front_end,
       "the all-pairs engine's item caches, distributed cache, jobs in flight and pair blocks",
       {
           text_setting<&AllPairsSettings::device_cache>(
               "allpairs_device_cache", "size",
               "Item cache per device: bytes (256MiB), more than 0, or slots of the "
               "application's item size (40 slots), at least 2; below the device's memory to "
               "emulate a small device. Empty: device_capacity (0: 90% of the device).",
               check_cache_size),
           text_setting<&AllPairsSettings::host_cache>(
               "allpairs_host_cache", "size",
               "Item cache per process: bytes (1GiB), more than 0, or slots (200 slots), at "
               "least 2. Empty: no limit on items, only host_capacity's.",
               check_cache_size),
           switch_setting<&AllPairsSettings::distributed_cache>(
               "allpairs_distributed_cache",
               "Before loading an item, ask which other process holds it and fetch it from "
               "there (the third cache level): on or off."),
           count_setting<&AllPairsSettings::hops>(
               "allpairs_hops", 1, 1024,
               "Candidates asked per distributed cache request (h), 1 to 1024."),
           count_setting<&AllPairsSettings::jobs_per_device>(
               "allpairs_jobs_per_device", 1, 65536,
               "Jobs in flight per device (back-pressure on the scheduler), 1 to 65536."),
           count_setting<&AllPairsSettings::leaf>(
               "allpairs_leaf", 1, 1000000,
               "Blocks of the pair matrix of at most LEAF x LEAF pairs are not split further, "
               "1 to 1000000."),
           switch_setting<&AllPairsSettings::cache_aware_stealing>(
               "allpairs_cache_aware_stealing",
               "A thief takes, among the blocks at least a quarter the size of the largest, the "
               "one whose items its process's cache holds most (the rocket paper's future "
               "work): on or off (off: the largest block)."),
       }});
}

}  // namespace strata::allpairs
