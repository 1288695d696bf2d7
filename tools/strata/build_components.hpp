#pragma once
// The backends and optional libraries this build of Strata has, and what each provides today.

#include <string>
#include <vector>

#include "strata/device/backends.hpp"

namespace strata::cli {

// One backend or optional library and its state in this build.
struct BuildComponent {
  std::string name;     // "cpu", "opencl", "cuda", "mpi", "hdf5"
  bool found = false;   // the toolkit or library was found when the build was configured
  bool usable = false;  // Strata has a working backend for it in this build
  std::string status;   // one line for people
};

// Every component, the device backends first (as discovery reported them), then libraries.
std::vector<BuildComponent> build_components(const std::vector<device::BackendReport>& devices);

}  // namespace strata::cli
