#pragma once
// Readers of Linux's own files about the machine: /proc/cpuinfo, /proc/meminfo and
// /sys/devices/system/node. machine_resources_proc.cpp is built from them; the hwloc
// implementation uses the memory and host name readers. Parsers take the text, so tests can too.

#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace strata::cli::linux_files {

// The processors /proc/cpuinfo lists, reduced to what MachineResources reports.
struct CpuTopology {
  std::string cpu_model;        // the first "model name"; empty when none (most ARM kernels)
  unsigned packages = 0;        // distinct "physical id"s
  unsigned physical_cores = 0;  // distinct ("physical id", "core id") pairs
  unsigned logical_cpus = 0;    // "processor" entries
};

// Summarizes /proc/cpuinfo text, counting only the processors in `allowed` (all when nullopt).
// A processor without "physical id" belongs to package 0; one without "core id" is a core of its
// own (what is known when the kernel reports no SMT siblings).
CpuTopology summarize_cpuinfo(std::istream& cpuinfo,
                              const std::optional<std::set<unsigned>>& allowed);

// The processors this process may run on (sched_getaffinity), or nullopt when it cannot be read.
std::optional<std::set<unsigned>> allowed_cpus();

// A "Name:   123 kB" line of /proc/meminfo text in bytes, or 0 when absent.
std::uint64_t meminfo_bytes(std::istream& meminfo, std::string_view name);
// The same, read from /proc/meminfo.
std::uint64_t meminfo_bytes(std::string_view name);

// The NUMA nodes in a /sys/devices/system/node directory (its nodeN entries); at least 1, since
// a kernel without NUMA support has no such directory but the machine is one node.
unsigned count_numa_nodes(const std::filesystem::path& node_directory);

// This machine's host name, or empty when it cannot be read.
std::string host_name();

}  // namespace strata::cli::linux_files
