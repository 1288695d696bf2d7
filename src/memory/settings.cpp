#include "strata/memory/settings.hpp"

#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"

namespace strata::memory {

bool declare_memory_settings() {
  return declare_settings(
      {"memory",
       Layer::memory,
       "capacities of host and device memory for chunks, spilling to disk",
       {
           bytes_setting<&MemorySettings::host_capacity>(
               "host_capacity", 1,
               "Host memory for chunks in each process, 1 B to 18446744073709551615 B (16 EiB - "
               "1 B); beyond it chunks spill to disk (unused ones first, then the one used again "
               "last)."),
           bytes_setting<&MemorySettings::device_capacity>(
               "device_capacity", 0,
               "Memory for chunks on each device, 0 B to 18446744073709551615 B (16 EiB - 1 B); "
               "0 means 90% of the device's memory free at start; beyond it chunks move to the "
               "host."),
           text_setting<&MemorySettings::spill_dir>(
               "spill_dir", "path",
               "Directory under which each process makes its spill directory; empty: $TMPDIR, "
               "else /tmp."),
           bytes_setting<&MemorySettings::spill_capacity>(
               "spill_capacity", 0,
               "Bytes of spill files per process, 0 B to 18446744073709551615 B (16 EiB - 1 B); "
               "0 means as much as the file system holds."),
           choice_setting<&MemorySettings::cpu_device_memory>(
               "cpu_device_memory", "where", {"host", "own"},
               "Where the CPU device's chunks live: host (in host memory, which its kernels use "
               "in place, so nothing is copied between the host and it) or own (a memory space "
               "of its own of device_capacity, copied to and from like a GPU's; for tests and "
               "to emulate a small device)."),
       }});
}

}  // namespace strata::memory
