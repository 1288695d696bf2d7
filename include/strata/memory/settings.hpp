#pragma once
// The memory layer's settings: capacities of the memory spaces and where chunks spill to disk.
// Declared into the configuration table by every program that includes this.

#include <cstdint>
#include <string>

namespace strata::memory {

struct MemorySettings {
  std::uint64_t host_capacity = 1ull << 30;  // bytes of host memory for chunks, per process
  std::uint64_t device_capacity = 0;         // per device; 0: 90% of its free memory
  std::string spill_dir;                     // where spill files go; empty: $TMPDIR or /tmp
  std::uint64_t spill_capacity = 0;          // bytes of spill files; 0: the file system's room
  std::string cpu_device_memory = "host";    // "host": the CPU device works in host memory;
                                             // "own": it has a space of its own
};

// Adds the section "memory" to the table (once); true.
bool declare_memory_settings();
inline const bool memory_settings_declared = declare_memory_settings();

}  // namespace strata::memory
