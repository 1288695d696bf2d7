#pragma once
// Compiling a kernel definition for an OpenCL device: generated source, the program cache
// (program binaries), build logs in errors, and the compiled kernel object launches use.

#include <CL/cl.h>

#include <memory>
#include <mutex>
#include <string>

#include "opencl_context.hpp"
#include "strata/device/device.hpp"
#include "strata/device/program_cache.hpp"

namespace strata::device::detail {

// A kernel built for one OpenCL device; its cl_kernel's arguments are set under `lock()`.
class OpenClCompiledKernel final : public CompiledKernel {
 public:
  OpenClCompiledKernel(const KernelDefinition& definition, const CompileOptions& options,
                       std::shared_ptr<OpenClContext> context, const Device* owner,
                       cl_program program, cl_kernel kernel);
  ~OpenClCompiledKernel() override;
  OpenClCompiledKernel(const OpenClCompiledKernel&) = delete;
  OpenClCompiledKernel& operator=(const OpenClCompiledKernel&) = delete;

  const Device* owner() const { return owner_; }
  cl_kernel native() const { return kernel_; }
  // clSetKernelArg is not thread-safe per kernel object: hold this from the first
  // clSetKernelArg to clEnqueueNDRangeKernel.
  std::mutex& lock() const { return lock_; }
  // Whether each array argument is followed, after the other trailing parameters, by its element
  // offset (GeneratedSource::array_offset_params); false only for kernels without arrays.
  bool takes_array_offsets() const { return takes_array_offsets_; }
  void set_takes_array_offsets(bool takes) { takes_array_offsets_ = takes; }

 private:
  std::shared_ptr<OpenClContext> context_;
  const Device* owner_;
  cl_program program_;
  cl_kernel kernel_;
  mutable std::mutex lock_;
  bool takes_array_offsets_ = false;
};

// Where and how to compile: the device's objects, its label for messages, and the cache.
struct OpenClTarget {
  std::shared_ptr<OpenClContext> context;
  const Device* owner = nullptr;
  std::shared_ptr<const std::string> label;
  ProgramCache* cache = nullptr;  // null: no caching
  std::string cache_key;
};

std::shared_ptr<const CompiledKernel> compile_opencl_kernel(const KernelDefinition& kernel,
                                                            const CompileOptions& options,
                                                            const OpenClTarget& target);

}  // namespace strata::device::detail
