#pragma once
// One CUDA GPU: device memory (cudaMalloc), pinned host memory (cudaHostAlloc), three queues on
// non-blocking streams, and kernels compiled by NVRTC to a CUBIN for its architecture (see
// nvrtc_compiler.hpp), cached in the ProgramCache and loaded with cudaLibraryLoadData.

#include <cuda_runtime_api.h>

#include <array>
#include <map>
#include <memory>
#include <mutex>

#include "cuda_queue.hpp"
#include "nvrtc_compiler.hpp"
#include "strata/device/backends.hpp"

namespace strata::device::cuda {

class CudaDevice final : public Device {
 public:
  CudaDevice(int ordinal, const cudaDeviceProp& properties, int driver_version,
             std::shared_ptr<ProgramCache> cache);
  ~CudaDevice() override;  // waits for the streams, unloads the kernels' libraries
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const DeviceInfo& info() const override { return info_; }
  DeviceBuffer allocate(std::uint64_t bytes) override;
  std::uint64_t free_memory_bytes() const override;  // cudaMemGetInfo
  HostBuffer allocate_host(std::uint64_t bytes) override;
  Queue& queue(QueueKind kind) override { return *queues_[static_cast<int>(kind)]; }
  std::shared_ptr<const CompiledKernel> compile(const KernelDefinition& kernel,
                                                const CompileOptions& options) override;
  // Through cuFFT (cufft_plan.cpp).
  std::shared_ptr<FftPlan> make_fft_plan(const FftShape& shape) override;
  int ordinal() const { return ordinal_; }
  const CudaTarget& target() const { return target_; }

 protected:
  void release(void* handle, std::uint64_t bytes) noexcept override;

 private:
  // The entry point of `binary`, loading the library once per distinct binary.
  cudaKernel_t load(const std::string& kernel, const std::string& binary,
                    const std::string& entry_point);

  int ordinal_;
  DeviceInfo info_;
  CudaTarget target_;
  std::string cache_key_;  // device part of the program cache key
  std::shared_ptr<ProgramCache> cache_;
  std::array<std::unique_ptr<CudaQueue>, queue_kinds> queues_;
  std::mutex libraries_lock_;
  std::map<std::string, cudaLibrary_t> libraries_;  // by binary
};

}  // namespace strata::device::cuda
