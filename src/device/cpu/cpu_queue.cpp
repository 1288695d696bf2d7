#include "cpu_queue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "../fill_pattern.hpp"
#include "cpu_device.hpp"
#include "strata/device/errors.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::device::detail {

HostQueue::HostQueue(std::string name) : name_(std::move(name)), thread_([this] { serve(); }) {}

HostQueue::~HostQueue() {
  {
    std::lock_guard guard(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Event HostQueue::submit(std::span<const Event> after, std::function<void()> work) {
  Operation operation{std::vector<Event>(after.begin(), after.end()), std::move(work),
                      std::make_shared<EventState>()};
  Event done(operation.done);
  {
    std::lock_guard guard(lock_);
    operations_.push_back(std::move(operation));
  }
  wake_.notify_one();
  return done;
}

Event HostQueue::run_or_submit(std::span<const Event> after, std::function<void()> work) {
  bool idle = false;
  {
    std::lock_guard guard(lock_);
    idle = operations_.empty() && !running_;
  }
  // What this caller enqueued before is ahead while the queue is not idle; another caller's
  // operation that becomes pending meanwhile is independent of this one.
  if (!idle || !std::all_of(after.begin(), after.end(), [](const Event& e) { return e.done(); }))
    return submit(after, std::move(work));
  auto done = std::make_shared<EventState>();
  std::exception_ptr error;
  try {
    for (const Event& event : after)
      event.wait();  // completed: rethrows a failure only
    if (work) work();
  } catch (...) {
    error = std::current_exception();
  }
  done->complete(error);
  return Event(std::move(done));
}

void HostQueue::serve() {
  for (;;) {
    Operation operation;
    {
      std::unique_lock guard(lock_);
      wake_.wait(guard, [this] { return stopping_ || !operations_.empty(); });
      if (operations_.empty()) return;
      operation = std::move(operations_.front());
      operations_.pop_front();
      running_ = true;
    }
    std::exception_ptr error;
    try {
      wait_all(operation.after);
      if (operation.work) operation.work();
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard guard(lock_);
      running_ = false;
    }
    operation.done->complete(error);
  }
}

namespace {

void check_range(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                 const char* operation) {
  if (!buffer) throw DeviceError(fmt::format("cpu {}: the device buffer is empty", operation));
  if (offset > buffer.bytes() || bytes > buffer.bytes() - offset) {
    throw DeviceError(fmt::format("cpu {}: {} B at offset {} exceed the {} B buffer", operation,
                                  bytes, offset, buffer.bytes()));
  }
}

unsigned char* bytes_of(const DeviceBuffer& buffer) {
  return static_cast<unsigned char*>(buffer.handle());
}

}  // namespace

CpuQueue::CpuQueue(QueueKind kind, Device& device, std::shared_ptr<BlockRunner> runner)
    : kind_(kind),
      device_(device),
      runner_(std::move(runner)),
      host_(fmt::format("cpu {} queue", to_string(kind))) {}

Event CpuQueue::copy_to_device(const DeviceBuffer& destination, std::uint64_t offset,
                               const void* source, std::uint64_t bytes,
                               std::span<const Event> after) {
  check_range(destination, offset, bytes, "copy to device");
  unsigned char* target = bytes_of(destination) + offset;
  // An empty copy may come with null pointers, which memcpy must not see.
  return enqueue(after, [=] {
    if (bytes != 0) std::memcpy(target, source, bytes);
  });
}

Event CpuQueue::copy_to_host(void* destination, const DeviceBuffer& source, std::uint64_t offset,
                             std::uint64_t bytes, std::span<const Event> after) {
  check_range(source, offset, bytes, "copy to host");
  const unsigned char* origin = bytes_of(source) + offset;
  return enqueue(after, [=] {
    if (bytes != 0) std::memcpy(destination, origin, bytes);
  });
}

Event CpuQueue::copy_on_device(const DeviceBuffer& destination, std::uint64_t destination_offset,
                               const DeviceBuffer& source, std::uint64_t source_offset,
                               std::uint64_t bytes, std::span<const Event> after) {
  check_range(destination, destination_offset, bytes, "copy on device");
  check_range(source, source_offset, bytes, "copy on device");
  unsigned char* target = bytes_of(destination) + destination_offset;
  const unsigned char* origin = bytes_of(source) + source_offset;
  return enqueue(after, [=] {
    if (bytes != 0) std::memmove(target, origin, bytes);
  });
}

Event CpuQueue::copy_rect_on_device(const DeviceBuffer& destination, const BufferRect& to,
                                    const DeviceBuffer& source, const BufferRect& from,
                                    const RectExtent& extent, std::span<const Event> after) {
  check_range(destination, to.offset, rect_end(to, extent) - to.offset, "copy a region on device");
  check_range(source, from.offset, rect_end(from, extent) - from.offset, "copy a region on device");
  unsigned char* target = bytes_of(destination);
  const unsigned char* origin = bytes_of(source);
  return enqueue(after, [=] {
    for (std::uint64_t z = 0; z < extent.depth; ++z)
      for (std::uint64_t y = 0; y < extent.height; ++y)
        std::memmove(target + to.offset + z * to.slice_pitch + y * to.row_pitch,
                     origin + from.offset + z * from.slice_pitch + y * from.row_pitch,
                     extent.width);
  });
}

Event CpuQueue::fill(const DeviceBuffer& destination, std::uint64_t offset,
                     std::span<const std::byte> pattern, std::uint64_t bytes,
                     std::span<const Event> after) {
  check_range(destination, offset, bytes, "fill");
  const FillPattern checked = fill_pattern(device_.info().id, pattern, offset, bytes);
  auto* target = reinterpret_cast<std::byte*>(bytes_of(destination) + offset);
  return enqueue(after, [=] { checked.write(target, bytes); });
}

Event CpuQueue::launch(const CompiledKernel& kernel, const LaunchGeometry& geometry,
                       const KernelArgs& args, std::span<const Event> after) {
  const auto& compiled = dynamic_cast<const CpuCompiledKernel&>(kernel);
  validate_arguments(compiled.definition(), args);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].is_array && args[i].buffer->device() != &device_) {
      throw KernelLaunchError(
          compiled.definition().name(), compiled.definition().param(i).name,
          fmt::format("kernel '{}', parameter '{}': the buffer belongs to another device",
                      compiled.definition().name(), compiled.definition().param(i).name));
    }
  }
  Dim3 block_offset = compiled.block_offset();
  std::vector<ArrayPlacement> placements = compiled.placements();
  // Origins taken at launch (checked as the GPU backends check them) replace the compiled ones.
  launch_shifts(compiled, args, KernelStyle::virtual_blocks);
  if (args.origins) {
    block_offset = args.origins->block_offset;
    placements.resize(args.origins->array_offsets.size());
    for (std::size_t a = 0; a < placements.size(); ++a)
      placements[a].offset = args.origins->array_offsets[a];
  }
  const unsigned compute_units = device_.info().compute_units;
  BlockGrid grid =
      BlockGrid::split(compiled.definition().name(), geometry, block_offset, compute_units);
  if (compiled.definition().cpu_calls() == CpuCalls::any_range)
    grid = grid.merged_along_x(compute_units);
  // The launch keeps its own copy of the arguments and function: callers may reuse theirs.
  return enqueue(after, [function = compiled.definition().cpu_function(), grid, args,
                         runner = runner_, placements = std::move(placements)] {
    runner->run(grid.blocks(), [&](std::uint64_t block) {
      const auto [begin, end] = grid.range(block);
      function(CpuBlock{begin, end, args, placements.empty() ? nullptr : &placements});
    });
  });
}

Event CpuQueue::enqueue(std::span<const Event> after, std::function<void()> work) {
  // The compute queue's callers are task bodies on the device's compute executor: running their
  // kernels on their own threads lets independent kernels run side by side.
  if (kind_ == QueueKind::compute) return host_.run_or_submit(after, std::move(work));
  return host_.submit(after, std::move(work));
}

Event CpuQueue::marker() {
  return host_.submit({}, nullptr);
}

}  // namespace strata::device::detail
