#pragma once
// Turns a kernel definition and compile options into the source a backend compiler gets:
// #defines for the constants and, for virtual-blocks kernels, the generated entry point that
// adds the block offset and subtracts array offsets (the lightning paper's wrapper, Fig. 8).

#include <string>

#include "strata/device/device.hpp"

namespace strata::device {

// The complete OpenCL C program and the name of its entry point.
struct GeneratedSource {
  std::string source;
  std::string entry_point;
};

GeneratedSource generate_opencl_source(const KernelDefinition& kernel,
                                       const CompileOptions& options);
GeneratedSource generate_cuda_source(const KernelDefinition& kernel, const CompileOptions& options);

// The text cached programs are keyed by, besides the source: flags and style.
std::string describe_options(const CompileOptions& options);

}  // namespace strata::device
