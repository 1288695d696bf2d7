#include "strata/runtime/device_executors.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "strata/runtime/thread_pool_executor.hpp"

namespace strata::runtime {
namespace {

// CPU-kernel blocks run by the pool's workers and the launching thread together: the blocks are
// cut into ranges (several per worker, for balance) that every participant claims from a shared
// counter, so a kernel costs a few task hand-offs instead of one task per range (a small one
// none), and the launching thread works instead of waiting. The launch returns once every claimed
// range ran; helpers that start later find nothing left and hold only the shared state. A launch
// whose ranges are all claimed offers its core to a launch still running with ranges left, so the
// last launch of a wave (five chunks on two cores) does not run alone on one core.
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
    const std::uint64_t left = job->unclaimed();
    // A launch long enough for a finished launch's core is listed for offers until it returns.
    job->range_time = first;
    const bool offered = first * static_cast<std::int64_t>(left) >= offer_above;
    if (offered) list(job);
    const struct Unlist {
      CpuPoolBlockRunner& runner;
      const std::shared_ptr<Job>& job;
      bool listed;
      ~Unlist() {
        if (listed) runner.unlist(job);
      }
    } unlist{*this, job, offered};
    // Launches running now, this one included: each has a core of its own, so only the workers
    // beyond them would otherwise idle.
    const std::uint64_t launches = running_.load(std::memory_order_relaxed);
    const std::uint64_t helpers = std::min(workers > launches ? workers - launches : 0, left);
    if (helpers > 0 && first * static_cast<std::int64_t>(left) >= hand_off) {
      job->helpers.fetch_add(helpers, std::memory_order_relaxed);
      for (std::uint64_t h = 0; h < helpers; ++h)
        runtime_.submit(TaskSpec("cpu kernel blocks").on(runtime_.cpu()), [job] { job->take(); });
    }
    job->take();
    offer_core(workers);
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

    // Ranges no participant has claimed yet.
    std::uint64_t unclaimed() const {
      const std::uint64_t claimed = next.load(std::memory_order_relaxed);
      return claimed < ranges ? ranges - claimed : 0;
    }

    const std::function<void(std::uint64_t)>* body;
    const std::uint64_t blocks;
    const std::uint64_t ranges;
    std::chrono::nanoseconds range_time{0};  // the first range's, set before the job is listed
    std::atomic<std::uint64_t> helpers{0};   // helper tasks submitted for it
    std::atomic<std::uint64_t> next{0};
    std::atomic<std::uint64_t> completed{0};
    std::atomic<bool> failed{false};
    std::mutex error_lock;
    std::exception_ptr error;  // the first, read once every range completed
  };

  void list(const std::shared_ptr<Job>& job) {
    std::lock_guard guard(jobs_lock_);
    jobs_.push_back(job);
    listed_.store(jobs_.size(), std::memory_order_relaxed);
  }

  void unlist(const std::shared_ptr<Job>& job) {
    std::lock_guard guard(jobs_lock_);
    std::erase(jobs_, job);
    listed_.store(jobs_.size(), std::memory_order_relaxed);
  }

  // Called by a launcher with nothing left to claim: if fewer launches than workers remain, one
  // helper for the listed launch with the most ranges left, when they would take longer than
  // `offer_above` and it has fewer helpers than the other workers. Below that the launcher's
  // thread likely takes the next launch before a helper would end (small launches come many at
  // a time): a helper beside it only costs a wake-up and a shared core.
  void offer_core(std::uint64_t workers) {
    if (listed_.load(std::memory_order_relaxed) == 0) return;  // small launches: no lock taken
    if (running_.load(std::memory_order_relaxed) > workers) return;
    std::shared_ptr<Job> neediest;
    {
      std::lock_guard guard(jobs_lock_);
      for (const std::shared_ptr<Job>& job : jobs_) {
        if (job->helpers.load(std::memory_order_relaxed) + 1 >= workers) continue;
        if (!neediest || job->unclaimed() > neediest->unclaimed()) neediest = job;
      }
      if (!neediest || neediest->unclaimed() < 2) return;
      if (neediest->range_time * static_cast<std::int64_t>(neediest->unclaimed()) < offer_above)
        return;
      neediest->helpers.fetch_add(1, std::memory_order_relaxed);
    }
    runtime_.submit(TaskSpec("cpu kernel blocks").on(runtime_.cpu()),
                    [neediest] { neediest->take(); });
  }

  // About what handing work to a sleeping pool worker costs (waking it, on a loaded machine).
  static constexpr std::chrono::microseconds hand_off{50};
  // The least work left in a running launch for which a finished launch offers its core.
  static constexpr std::chrono::milliseconds offer_above{5};

  Runtime& runtime_;
  std::atomic<std::uint64_t> running_{0};
  std::mutex jobs_lock_;
  std::vector<std::shared_ptr<Job>> jobs_;  // long launches not returned yet
  std::atomic<std::size_t> listed_{0};      // jobs_.size(), read without the lock
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
    // The CPU device's kernels run on CPU cores: placement policies (PATS) weigh it as one.
    executor->set_kind(queue != device::QueueKind::compute ? ExecutorKind::copy
                       : cpu_compute                       ? ExecutorKind::cpu
                                                           : ExecutorKind::device_compute,
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
