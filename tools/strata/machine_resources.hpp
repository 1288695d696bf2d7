#pragma once
// MachineResources: what this machine offers the runtime (CPU model, cores, NUMA nodes, memory).
// One interface, two implementations; the build compiles one (tools/strata/CMakeLists.txt):
//   machine_resources_hwloc.cpp - hwloc's topology, when configure found hwloc (STRATA_HAVE_HWLOC);
//   machine_resources_proc.cpp  - Linux's /proc/cpuinfo and /sys/devices/system/node otherwise.
// Both read the memory from /proc/meminfo.

#include <cstdint>
#include <string>

namespace strata::cli {

// The resources of the machine this process runs on, as far as it may use them.
struct MachineResources {
  std::string host_name;
  std::string cpu_model;  // empty when the source does not name it
  unsigned packages = 0;
  unsigned physical_cores = 0;
  unsigned logical_cpus = 0;  // hardware threads this process may run on
  unsigned numa_nodes = 0;
  std::uint64_t memory_total_bytes = 0;
  std::uint64_t memory_available_bytes = 0;  // 0 when unknown
};

// Detects the resources; throws strata::Error when the topology cannot be read (hwloc fails to
// load it, or /proc/cpuinfo cannot be opened).
MachineResources detect_machine_resources();

}  // namespace strata::cli
