// detect_machine_resources() from Linux's own files, for builds without hwloc.
#include <algorithm>
#include <fstream>
#include <thread>

#include "linux_files.hpp"
#include "machine_resources.hpp"
#include "strata/base/error.hpp"

namespace strata::cli {

MachineResources detect_machine_resources() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  if (!cpuinfo) {
    throw Error(
        "cannot read /proc/cpuinfo to detect this machine's processors (is /proc mounted?)");
  }
  // Counted over the CPUs this process may run on: its affinity, which a cgroup cpuset narrows.
  const std::optional<std::set<unsigned>> allowed = linux_files::allowed_cpus();
  const linux_files::CpuTopology cpus = linux_files::summarize_cpuinfo(cpuinfo, allowed);

  MachineResources resources;
  resources.host_name = linux_files::host_name();
  resources.cpu_model = cpus.cpu_model;
  resources.packages = cpus.packages;
  resources.physical_cores = cpus.physical_cores;
  resources.logical_cpus = cpus.logical_cpus;
  if (resources.logical_cpus == 0) {
    // This /proc/cpuinfo has no "processor : N" entries (s390x's layout, say): the scheduler's
    // count stands in, one core per CPU on one package.
    const std::size_t count = allowed && !allowed->empty()
                                  ? allowed->size()
                                  : std::max(1U, std::thread::hardware_concurrency());
    resources.logical_cpus = static_cast<unsigned>(count);
    resources.physical_cores = resources.logical_cpus;
    resources.packages = 1;
  }
  resources.numa_nodes = linux_files::count_numa_nodes("/sys/devices/system/node");
  resources.memory_total_bytes = linux_files::meminfo_bytes("MemTotal");
  resources.memory_available_bytes = linux_files::meminfo_bytes("MemAvailable");
  return resources;
}

}  // namespace strata::cli
