#include "strata/runtime/device_executors.hpp"

#include <fmt/format.h>

#include <mutex>

#include "strata/runtime/thread_pool_executor.hpp"

namespace strata::runtime {
namespace {

// CPU-kernel blocks as runtime tasks, grouped so each task covers several blocks when there are
// many more blocks than workers.
class CpuPoolBlockRunner final : public device::BlockRunner {
 public:
  explicit CpuPoolBlockRunner(Runtime& runtime) : runtime_(runtime) {}

  void run(std::uint64_t blocks, const std::function<void(std::uint64_t)>& body) override {
    const std::uint64_t workers = runtime_.executor(runtime_.cpu()).worker_count();
    const std::uint64_t tasks = std::min<std::uint64_t>(blocks, 8 * workers);
    // A kernel's exception belongs to the kernel's launch, not to these helper tasks: catch it
    // here and rethrow it from run() once every part finished (they all reference `body`).
    std::mutex error_lock;
    std::exception_ptr first_error;
    std::vector<TaskHandle> parts;
    parts.reserve(tasks);
    for (std::uint64_t t = 0; t < tasks; ++t) {
      const std::uint64_t first = blocks * t / tasks;
      const std::uint64_t last = blocks * (t + 1) / tasks;
      parts.push_back(
          runtime_.submit(TaskSpec("cpu kernel blocks").on(runtime_.cpu()), [&, first, last] {
            try {
              for (std::uint64_t b = first; b < last; ++b)
                body(b);
            } catch (...) {
              std::lock_guard guard(error_lock);
              if (!first_error) first_error = std::current_exception();
            }
          }));
    }
    std::exception_ptr not_run;  // a part cancelled because the run failed elsewhere
    for (const TaskHandle& part : parts) {
      try {
        part.wait();
      } catch (const Error&) {
        if (!not_run) not_run = std::current_exception();
      }
    }
    if (first_error) std::rethrow_exception(first_error);
    if (not_run) std::rethrow_exception(not_run);
  }

 private:
  Runtime& runtime_;
};

}  // namespace

ExecutorId DeviceExecutors::of(device::QueueKind queue) const {
  switch (queue) {
    case device::QueueKind::compute:
      return compute;
    case device::QueueKind::host_to_device:
      return upload;
    case device::QueueKind::device_to_host:
      return download;
  }
  return compute;
}

DeviceExecutors add_device(Runtime& runtime, device::Device& device) {
  DeviceExecutors executors;
  executors.device = &device;
  const auto add = [&](device::QueueKind queue) {
    auto executor = std::make_unique<ThreadPoolExecutor>(
        fmt::format("{} {}", device.info().id, device::to_string(queue)), 1,
        make_priority_fifo_policy());
    executor->set_kind(
        queue == device::QueueKind::compute ? ExecutorKind::device_compute : ExecutorKind::copy,
        device.info().id);
    return runtime.add_executor(std::move(executor));
  };
  executors.compute = add(device::QueueKind::compute);
  executors.upload = add(device::QueueKind::host_to_device);
  executors.download = add(device::QueueKind::device_to_host);
  return executors;
}

void complete_when(TaskContext& context, const device::Event& event) {
  auto deferred = std::make_shared<DeferredCompletion>(context.defer_completion());
  event.on_complete([deferred](std::exception_ptr error) {
    if (error) {
      deferred->fail(error);
    } else {
      deferred->complete();
    }
  });
}

std::shared_ptr<device::BlockRunner> cpu_pool_block_runner(Runtime& runtime) {
  return std::make_shared<CpuPoolBlockRunner>(runtime);
}

}  // namespace strata::runtime
