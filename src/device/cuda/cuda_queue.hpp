#pragma once
// One of a CUDA device's three queues: a non-blocking stream. Waits on other CUDA events happen
// on the GPU (cudaStreamWaitEvent); waits on any other event hold the operation, and every later
// one of this queue, back on the host until it completes (OrderedIssuer), so nothing blocks.

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>

#include "launch_shape.hpp"
#include "ordered_issuer.hpp"
#include "strata/device/device.hpp"

namespace strata::device::cuda {

class CudaQueue final : public Queue {
 public:
  CudaQueue(QueueKind kind, const Device& device, int ordinal, const LaunchLimits& limits);
  ~CudaQueue() override;  // fails held-back operations, waits for the stream
  CudaQueue(const CudaQueue&) = delete;
  CudaQueue& operator=(const CudaQueue&) = delete;

  QueueKind kind() const override { return kind_; }
  Event copy_to_device(const DeviceBuffer& destination, std::uint64_t offset, const void* source,
                       std::uint64_t bytes, std::span<const Event> after) override;
  Event copy_to_host(void* destination, const DeviceBuffer& source, std::uint64_t offset,
                     std::uint64_t bytes, std::span<const Event> after) override;
  Event copy_on_device(const DeviceBuffer& destination, std::uint64_t destination_offset,
                       const DeviceBuffer& source, std::uint64_t source_offset, std::uint64_t bytes,
                       std::span<const Event> after) override;
  Event copy_rect_on_device(const DeviceBuffer& destination, const BufferRect& to,
                            const DeviceBuffer& source, const BufferRect& from,
                            const RectExtent& extent, std::span<const Event> after) override;
  Event fill(const DeviceBuffer& destination, std::uint64_t offset,
             std::span<const std::byte> pattern, std::uint64_t bytes,
             std::span<const Event> after) override;
  Event launch(const CompiledKernel& kernel, const LaunchGeometry& geometry, const KernelArgs& args,
               std::span<const Event> after) override;
  Event marker() override;
  cudaStream_t stream() const { return stream_; }
  const Device& device() const { return device_; }

  // Orders `operation` (issued on this queue's stream, e.g. by cuFFT) after `after` and returns
  // the event of its completion; an exception it throws becomes the event's error.
  using Operation = std::function<cudaError_t(cudaStream_t)>;
  Event submit(std::span<const Event> after, std::string what, Operation operation);

 private:
  void check_range(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                   const char* operation) const;

  QueueKind kind_;
  const Device& device_;
  int ordinal_;
  LaunchLimits limits_;
  cudaStream_t stream_ = nullptr;
  std::shared_ptr<OrderedIssuer> issuer_;
};

}  // namespace strata::device::cuda
