#include "build_components.hpp"

#include "strata/device/backends.hpp"

namespace strata::cli {
namespace {

BuildComponent optional_component(std::string name, bool found, const std::string& what,
                                  const std::string& part_not_built) {
  return {std::move(name), found, false,
          found ? what + " found at configure time, " + part_not_built + " not yet built"
                : what + " not found at configure time"};
}

}  // namespace

std::vector<BuildComponent> build_components(const std::vector<device::BackendReport>& devices) {
  std::vector<BuildComponent> components;
  for (const auto& report : devices) {
    const bool usable = report.devices > 0;
    components.push_back({device::to_string(report.backend), report.built, usable,
                          (report.built ? "built; " : "") + report.status});
  }
  const bool mpi = STRATA_HAVE_MPI != 0;
  components.push_back(
      {"mpi", mpi, mpi,
       mpi ? "built; the cluster layer runs over MPI (strata launch -n N -- PROGRAM)"
           : "MPI library not found at configure time: programs run as a cluster of one"});
  components.push_back(
      optional_component("hdf5", STRATA_HAVE_HDF5 != 0, "HDF5 library", "HDF5 storage"));
  return components;
}

}  // namespace strata::cli
