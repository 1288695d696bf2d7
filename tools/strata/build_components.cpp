#include "build_components.hpp"

namespace strata::cli {
namespace {

BuildComponent optional_component(std::string name, bool found, const std::string& what,
                                  const std::string& part_not_built) {
  return {std::move(name), found, false,
          found ? what + " found at configure time, " + part_not_built + " not yet built"
                : what + " not found at configure time"};
}

}  // namespace

std::vector<BuildComponent> build_components() {
  return {
      {"cpu", true, true, "built: CPU pool and I/O pool"},
      optional_component("opencl", STRATA_HAVE_OPENCL != 0, "OpenCL toolkit", "backend"),
      optional_component("cuda", STRATA_HAVE_CUDA != 0, "CUDA toolkit with NVRTC", "backend"),
      optional_component("mpi", STRATA_HAVE_MPI != 0, "MPI library", "cluster layer"),
      optional_component("hdf5", STRATA_HAVE_HDF5 != 0, "HDF5 library", "HDF5 storage"),
  };
}

}  // namespace strata::cli
