#pragma once
// The backends and optional libraries this build of Strata has, and what each provides today.

#include <string>
#include <vector>

namespace strata::cli {

// One backend or optional library and its state in this build.
struct BuildComponent {
  std::string name;     // "cpu", "opencl", "cuda", "mpi", "hdf5"
  bool found = false;   // the toolkit or library was found when the build was configured
  bool usable = false;  // Strata has a working backend for it in this build
  std::string status;   // one line for people
};

// Every component, the CPU backend first.
std::vector<BuildComponent> build_components();

}  // namespace strata::cli
