#pragma once
// An in-order queue served by one host thread: each operation starts after the events it
// waits for and completes its own event. The CPU device's three queues are these.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "strata/device/backends.hpp"
#include "strata/device/device.hpp"

namespace strata::device::detail {

class HostQueue {
 public:
  explicit HostQueue(std::string name);
  ~HostQueue();  // runs what was enqueued, then stops
  HostQueue(const HostQueue&) = delete;
  HostQueue& operator=(const HostQueue&) = delete;

  // Enqueues `work`; its event completes when it ran (with its exception, if it threw, or with
  // the first error among `after`, in which case `work` does not run).
  Event submit(std::span<const Event> after, std::function<void()> work);
  // Runs `work` on the calling thread when nothing of this queue is pending or running and
  // every event of `after` completed (the order is the same as enqueueing it: nothing is ahead),
  // else enqueues it. Saves the hand-over to the queue's thread, and lets independent callers
  // run at once: their operations are ordered by the events they wait for, not by the queue.
  Event run_or_submit(std::span<const Event> after, std::function<void()> work);

 private:
  struct Operation {
    std::vector<Event> after;
    std::function<void()> work;
    std::shared_ptr<EventState> done;
  };
  void serve();

  std::string name_;
  std::mutex lock_;
  std::condition_variable wake_;
  std::deque<Operation> operations_;
  bool running_ = false;  // the thread runs an operation it took from operations_
  bool stopping_ = false;
  std::thread thread_;
};

// A Queue whose operations are host functions: memcpy for copies, blocks for kernels.
class CpuQueue final : public Queue {
 public:
  CpuQueue(QueueKind kind, Device& device, std::shared_ptr<BlockRunner> runner);
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
  // Runs `work` on this queue's thread, in order with its other operations (FFT plans).
  Event run_on_host(std::span<const Event> after, std::function<void()> work) {
    return host_.submit(after, std::move(work));
  }
  const Device& device() const { return device_; }
  BlockRunner& runner() const { return *runner_; }

 private:
  Event enqueue(std::span<const Event> after, std::function<void()> work);

  QueueKind kind_;
  Device& device_;
  std::shared_ptr<BlockRunner> runner_;
  HostQueue host_;
};

}  // namespace strata::device::detail
