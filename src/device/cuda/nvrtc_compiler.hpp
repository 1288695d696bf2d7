#pragma once
// CUDA source to a loadable binary with NVRTC. Needs no GPU and no driver, so it is tested on
// machines without either; the CUDA device calls it with its own architecture.

#include <string>
#include <vector>

namespace strata::device::cuda {

// What NVRTC produces: a CUBIN for one real architecture (sm_XY), or PTX for a virtual one
// (compute_XY) that the driver compiles when it loads it.
enum class CudaBinaryFormat { cubin, ptx };

// The target for a device of compute capability major.minor: a CUBIN for sm_XY when this NVRTC
// knows that architecture, else PTX for the newest architecture it knows (the driver JITs it).
struct CudaTarget {
  std::string arch;  // "sm_90", or "compute_120" for PTX
  CudaBinaryFormat format = CudaBinaryFormat::cubin;
};
CudaTarget cuda_target_for(int major, int minor);

// One compilation: `source` is the complete program (as generate_cuda_source made it).
struct CudaProgram {
  std::string source;
  std::string kernel;  // the kernel's name, for messages and the program's file name
  std::string device;  // the device it is for, for messages ("NVIDIA H100 80GB HBM3")
  CudaTarget target;
  std::string flags;  // extra NVRTC options, separated by spaces
};

// Compiles `program`; returns the CUBIN or PTX bytes. Throws KernelCompileError naming the
// kernel, "cuda", the device and the architecture, with NVRTC's log (file(line): error ...).
std::string compile_cuda_program(const CudaProgram& program);

// "13.0": the NVRTC version, part of the program cache's device key.
std::string nvrtc_version();
// The real architectures (e.g. 75, 80, 90) this NVRTC can produce CUBINs for.
std::vector<int> nvrtc_architectures();

}  // namespace strata::device::cuda
