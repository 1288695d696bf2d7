// detect_machine_resources() from hwloc's topology, for builds where configure found hwloc.
#include <hwloc.h>

#include "linux_files.hpp"
#include "machine_resources.hpp"
#include "strata/base/error.hpp"

namespace strata::cli {
namespace {

// Owns a loaded hwloc topology.
class Topology {
 public:
  Topology() {
    if (hwloc_topology_init(&topology_) != 0) {
      throw Error("hwloc could not initialize a topology");
    }
    if (hwloc_topology_load(topology_) != 0) {
      hwloc_topology_destroy(topology_);
      throw Error("hwloc could not load the machine topology");
    }
  }
  ~Topology() { hwloc_topology_destroy(topology_); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  unsigned count(hwloc_obj_type_t type) const {
    const int found = hwloc_get_nbobjs_by_type(topology_, type);
    return found > 0 ? static_cast<unsigned>(found) : 0;
  }
  hwloc_obj_t object(hwloc_obj_type_t type, unsigned index) const {
    return hwloc_get_obj_by_type(topology_, type, index);
  }
  hwloc_obj_t root() const { return hwloc_get_root_obj(topology_); }

 private:
  hwloc_topology_t topology_ = nullptr;
};

// The CPU model hwloc found on the first package that names one (or on the machine object).
std::string cpu_model(const Topology& topology) {
  for (unsigned i = 0; i < topology.count(HWLOC_OBJ_PACKAGE); ++i) {
    const hwloc_obj_t package = topology.object(HWLOC_OBJ_PACKAGE, i);
    const char* model =
        package != nullptr ? hwloc_obj_get_info_by_name(package, "CPUModel") : nullptr;
    if (model != nullptr) return model;
  }
  const hwloc_obj_t root = topology.root();
  const char* model = root != nullptr ? hwloc_obj_get_info_by_name(root, "CPUModel") : nullptr;
  return model != nullptr ? model : "";
}

}  // namespace

MachineResources detect_machine_resources() {
  const Topology topology;
  MachineResources resources;
  resources.host_name = linux_files::host_name();
  resources.cpu_model = cpu_model(topology);
  resources.packages = topology.count(HWLOC_OBJ_PACKAGE);
  resources.physical_cores = topology.count(HWLOC_OBJ_CORE);
  resources.logical_cpus = topology.count(HWLOC_OBJ_PU);
  resources.numa_nodes = topology.count(HWLOC_OBJ_NUMANODE);
  // The kernel's total is preferred: hwloc sums NUMA nodes, which can miss hot-plugged memory.
  resources.memory_total_bytes = linux_files::meminfo_bytes("MemTotal");
  if (const hwloc_obj_t root = topology.root();
      resources.memory_total_bytes == 0 && root != nullptr) {
    resources.memory_total_bytes = root->total_memory;
  }
  resources.memory_available_bytes = linux_files::meminfo_bytes("MemAvailable");
  return resources;
}

}  // namespace strata::cli
