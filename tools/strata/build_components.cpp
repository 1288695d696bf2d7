#include "build_components.hpp"

#include "strata/device/backends.hpp"

namespace strata::cli {

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
  const bool hdf5 = STRATA_HAVE_HDF5 != 0;
  components.push_back(
      {"hdf5", hdf5, hdf5,
       hdf5 ? "built; arrays load and save HDF5 datasets (strata arrays info FILE.h5)"
            : "HDF5 library not found at configure time: arrays read and write .npy files only"});
  return components;
}

}  // namespace strata::cli
