#pragma once
// Turns a kernel definition and compile options into the source a backend compiler gets:
// #defines for the constants and, for virtual-blocks kernels, the generated entry point that
// adds the block offset and subtracts array offsets (the lightning paper's wrapper, Fig. 8).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strata/device/device.hpp"

namespace strata::device {

// The complete OpenCL C program and the name of its entry point. An OpenCL entry point takes
// each array as its whole buffer plus an element offset: `array_offset_params` trailing ulong
// parameters, one per array parameter in order, after any origins (0 for CUDA, for a kernel
// without arrays, and for a direct source whose declaration does not match its signature).
struct GeneratedSource {
  std::string source;
  std::string entry_point;
  std::size_t array_offset_params = 0;
};

GeneratedSource generate_opencl_source(const KernelDefinition& kernel,
                                       const CompileOptions& options);
GeneratedSource generate_cuda_source(const KernelDefinition& kernel, const CompileOptions& options);

// A launch's origins for a virtual-blocks program (`style`: the backend's source's) compiled with
// origins_at_launch: the first block's index, and per array parameter the element shift of its
// region's origin (the launch's offsets times the strides of the compiled extents). The OpenCL
// entry point takes them as trailing arguments (the block offset as three uint, then a long per
// array); the CUDA one the block offset alone, its array pointers coming shifted. Nothing for a
// program with its origins baked in or a direct-style source. Throws KernelLaunchError naming
// the kernel when the launch's origins do not fit the program: missing, given to a baked
// program, a wrong count, a block offset past 32 bits.
struct LaunchShifts {
  std::array<std::uint32_t, 3> block_offset{0, 0, 0};
  std::vector<std::int64_t> elements;  // per array parameter
};
std::optional<LaunchShifts> launch_shifts(const CompiledKernel& compiled, const KernelArgs& args,
                                          KernelStyle style);
// How many trailing parameters such an OpenCL entry point has (0 with origins baked in).
std::size_t opencl_origin_parameter_count(const KernelDefinition& kernel,
                                          const CompileOptions& options, KernelStyle style);

// The text cached programs are keyed by, besides the source: flags and style.
std::string describe_options(const CompileOptions& options);

}  // namespace strata::device
