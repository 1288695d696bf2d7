#pragma once
// The OpenCL backend's Device: one context, three in-order command queues, buffers as cl_mem,
// kernels compiled at run time through the program cache.

#include <array>
#include <memory>
#include <string>

#include "opencl_context.hpp"
#include "opencl_queue.hpp"
#include "strata/device/backends.hpp"

namespace strata::device::detail {

// One OpenCL device of one platform.
class OpenClDevice final : public Device {
 public:
  // `id` is "opencl:P:D"; throws DeviceError when the context or queues cannot be created.
  OpenClDevice(cl_platform_id platform, cl_device_id device, std::string id,
               std::shared_ptr<ProgramCache> cache);
  ~OpenClDevice() override;

  const DeviceInfo& info() const override { return info_; }
  DeviceBuffer allocate(std::uint64_t bytes) override;
  HostBuffer allocate_host(std::uint64_t bytes) override;
  Queue& queue(QueueKind kind) override { return *queues_[static_cast<int>(kind)]; }
  std::shared_ptr<const CompiledKernel> compile(const KernelDefinition& kernel,
                                                const CompileOptions& options) override;
  // Through clFFT where the build found it (opencl_fft.cpp).
  std::shared_ptr<FftPlan> make_fft_plan(const FftShape& shape) override;

  const OpenClContext& context() const { return *context_; }
  const std::shared_ptr<OpenClContext>& shared_context() const { return context_; }
  // "opencl:0:0 (device name)", shared with events for their messages.
  const std::shared_ptr<const std::string>& label() const { return label_; }

 protected:
  void release(void* handle, std::uint64_t bytes) noexcept override;

 private:
  DeviceInfo info_;
  std::shared_ptr<const std::string> label_;
  std::shared_ptr<OpenClContext> context_;
  std::shared_ptr<ProgramCache> cache_;
  std::string cache_key_;  // platform, device and driver version
  std::array<std::unique_ptr<OpenClQueue>, queue_kinds> queues_;
};

}  // namespace strata::device::detail
