#include "strata/runtime/device_executors.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>

#include "strata/runtime/thread_pool_executor.hpp"

namespace strata::runtime {
namespace {

// CPU-kernel blocks run by the pool's workers and the launching thread together: the blocks are
// cut into ranges (several per worker, for balance) that every participant claims from a shared
// counter, so a kernel costs a few task hand-offs instead of one task per range (a small one
// none), and the launching thread works instead of waiting. The launch returns once every claimed
// range ran; helpers that start later find nothing left and hold only the shared state.
class CpuPoolBlockRunner final : public device::BlockRunner {
 public:
  explicit CpuPoolBlockRunner(Runtime& runtime) : runtime_(runtime) {}

  void run(std::uint64_t blocks, const std::function<void(std::uint64_t)>& body) override {
    if (blocks == 0) return;
    const std::uint64_t workers = runtime_.executor(runtime_.cpu()).worker_count();
    running_.fetch_add(1, std::memory_order_relaxed);
    const struct Leave {
      std::atomic<std::uint64_t>& running;
      ~Leave() { running.fetch_sub(1, std::memory_order_relaxed); }
    } leave{running_};
    auto job = std::make_shared<Job>(body, blocks, std::min<std::uint64_t>(blocks, 8 * workers));
    // The launching thread runs the first range alone, and asks for helpers only when the rest
    // would take it longer than waking a worker costs (a small kernel is over before a helper
    // starts), and only as many as there are workers beyond the launches running side by side:
    // with a launch on every core, helpers would only take cores from the others.
    const auto started = std::chrono::steady_clock::now();
    job->take(1);
    const auto first = std::chrono::steady_clock::now() - started;
    const std::uint64_t left =
        job->ranges - std::min(job->ranges, job->next.load(std::memory_order_relaxed));
    // Launches running now, this one included: each has a core of its own, so only the workers
    // beyond them would otherwise idle.
    const std::uint64_t launches = running_.load(std::memory_order_relaxed);
    const std::uint64_t helpers = std::min(workers > launches ? workers - launches : 0, left);
    if (helpers > 0 && first * static_cast<std::int64_t>(left) >= hand_off) {
      for (std::uint64_t h = 0; h < helpers; ++h)
        runtime_.submit(TaskSpec("cpu kernel blocks").on(runtime_.cpu()), [job] { job->take(); });
    }
    job->take();
    // Ranges a helper claimed may still run: wait for them (they reference `body`).
    for (std::uint64_t seen = job->completed.load(std::memory_order_acquire); seen < job->ranges;
         seen = job->completed.load(std::memory_order_acquire)) {
      job->completed.wait(seen, std::memory_order_acquire);
    }
    // A kernel's exception belongs to the kernel's launch, not to the helper tasks: taken out of
    // the job, whose last reference a helper may drop while the launcher's caller handles it.
    if (std::exception_ptr error = std::exchange(job->error, nullptr))
      std::rethrow_exception(error);
  }

 private:
  struct Job {
    Job(const std::function<void(std::uint64_t)>& run, std::uint64_t block_count,
        std::uint64_t range_count)
        : body(&run), blocks(block_count), ranges(range_count) {}

    // Runs ranges until none is left (at most `most`); after a failure the rest are counted but
    // not run.
    void take(std::uint64_t most = std::numeric_limits<std::uint64_t>::max()) {
      for (std::uint64_t taken = 0; taken < most; ++taken) {
        const std::uint64_t range = next.fetch_add(1, std::memory_order_relaxed);
        if (range >= ranges) return;
        if (!failed.load(std::memory_order_acquire)) {
          try {
            for (std::uint64_t b = blocks * range / ranges; b < blocks * (range + 1) / ranges; ++b)
              (*body)(b);
          } catch (...) {
            std::lock_guard guard(error_lock);
            if (!error) error = std::current_exception();
            failed.store(true, std::memory_order_release);
          }
        }
        if (completed.fetch_add(1, std::memory_order_acq_rel) + 1 == ranges) completed.notify_all();
      }
    }

    const std::function<void(std::uint64_t)>* body;
    const std::uint64_t blocks;
    const std::uint64_t ranges;
    std::atomic<std::uint64_t> next{0};
    std::atomic<std::uint64_t> completed{0};
    std::atomic<bool> failed{false};
    std::mutex error_lock;
    std::exception_ptr error;  // the first, read once every range completed
  };

  // About what handing work to a sleeping pool worker costs (waking it, on a loaded machine).
  static constexpr std::chrono::microseconds hand_off{50};

  Runtime& runtime_;
  std::atomic<std::uint64_t> running_{0};
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
    // The CPU device's compute queue runs a kernel on the calling thread when it is idle: as
    // many callers as the CPU pool has workers run small kernels side by side.
    const bool cpu_compute =
        device.info().backend == device::BackendKind::cpu && queue == device::QueueKind::compute;
    const unsigned threads = cpu_compute ? runtime.executor(runtime.cpu()).worker_count() : 1;
    auto executor = std::make_unique<ThreadPoolExecutor>(
        fmt::format("{} {}", device.info().id, device::to_string(queue)), threads,
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
