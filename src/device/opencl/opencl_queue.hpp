#pragma once
// One of an OpenCL device's three in-order command queues, as a Strata Queue: non-blocking
// copies and kernel launches whose events chain across queues, devices and backends.

#include <CL/cl.h>

#include <functional>

#include "strata/device/device.hpp"

namespace strata::device::detail {

class OpenClDevice;
class WaitList;

// An in-order cl_command_queue; every operation is flushed at once so that events of other
// queues (and callbacks) can rely on it making progress.
class OpenClQueue final : public Queue {
 public:
  OpenClQueue(QueueKind kind, OpenClDevice& device);
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
  // An array argument is passed as its whole buffer and its offset in elements (a trailing
  // argument, GeneratedSource); an offset that is not a whole number of elements is refused.
  Event launch(const CompiledKernel& kernel, const LaunchGeometry& geometry, const KernelArgs& args,
               std::span<const Event> after) override;
  Event marker() override;
  // Enqueues a command of a library (clFFT) through `enqueue(count, wait_list, &event)`, in
  // order with this queue's others, with the same wait lists and events as its own commands.
  using NativeEnqueue =
      std::function<cl_int(cl_command_queue, cl_uint, const cl_event*, cl_event*)>;
  Event enqueue_native(const char* operation, std::span<const Event> after,
                       const NativeEnqueue& enqueue);
  const OpenClDevice& device() const { return device_; }

 private:
  // Builds the wait list, calls `enqueue(count, list, &event)`, flushes and wraps the event.
  template <typename Enqueue>
  Event submit(const char* operation, std::span<const Event> after, Enqueue&& enqueue);
  // A marker after `after` and everything enqueued so far (zero-byte copies are this).
  Event marker_after(const char* operation, std::span<const Event> after);
  void check_range(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                   const char* operation) const;

  QueueKind kind_;
  OpenClDevice& device_;
  cl_command_queue queue_;
};

}  // namespace strata::device::detail
