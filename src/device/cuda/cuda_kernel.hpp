#pragma once
// A kernel compiled and loaded for one CUDA device: the cudaKernel_t of its entry point. The
// library it lives in belongs to the device and stays loaded as long as the device.

#include <cuda_runtime_api.h>

#include "strata/device/device.hpp"

namespace strata::device::cuda {

class CudaCompiledKernel final : public CompiledKernel {
 public:
  CudaCompiledKernel(const KernelDefinition& definition, const CompileOptions& options,
                     const Device& device, cudaKernel_t kernel)
      : CompiledKernel(definition, options), device_(&device), kernel_(kernel) {}
  const Device& device() const { return *device_; }
  cudaKernel_t kernel() const { return kernel_; }

 private:
  const Device* device_;
  cudaKernel_t kernel_;
};

}  // namespace strata::device::cuda
