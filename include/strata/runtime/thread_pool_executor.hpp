#pragma once
// ThreadPoolExecutor: an executor with its own threads and a scheduling policy (the CPU pool
// with work stealing, the I/O pool with priority FIFO). Idle threads go through three stages: one
// at a time spins for new work (yielding its core to any other runnable thread; see IdleSpin for
// how long), others poll with growing sleeps, then they sleep until woken. A task is queued without
// a wake-up while some worker spins or polls, so a stream of small tasks costs no sleep/wake system
// calls and idle workers leave the cores to the submitter.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "strata/runtime/executor.hpp"
#include "strata/runtime/scheduling_policy.hpp"

namespace strata::runtime {

class ThreadPoolExecutor final : public Executor {
 public:
  // How long the one spinning idle worker watches for new work.
  enum class IdleSpin : std::uint8_t {
    brief,  // 50 µs
    // Up to 2 ms while the runner has completions pending (TaskRunner::completions_pending()):
    // the task a completion readies then starts without waking a sleeping thread, which cost
    // 27-53 µs per wake-up on the virtual machines measured (a halted virtual CPU is woken).
    while_completions_pending,
  };
  ThreadPoolExecutor(std::string name, unsigned threads, std::unique_ptr<SchedulingPolicy> policy,
                     IdleSpin idle_spin = IdleSpin::brief);
  ~ThreadPoolExecutor() override;

  void start(TaskRunner& runner) override;
  void enqueue(ReadyTask* task) override;
  std::size_t queued() const override { return policy_->size(); }
  bool run_one(unsigned worker) override;
  void stop() override;

 private:
  // What an idle worker's spin for work saw: whether work came, and when the spin began to last
  // (0 if it did not last long enough to read the clock).
  struct Spin {
    bool found = false;
    std::uint64_t idle_since = 0;
  };
  void work(unsigned worker);
  Spin spin_for_work();
  bool rest();  // polls, then sleeps, until there is work; false once stopping and drained
  void wake_one();

  std::unique_ptr<SchedulingPolicy> policy_;
  const IdleSpin idle_spin_;
  TaskRunner* runner_ = nullptr;
  std::vector<std::thread> threads_;
  alignas(64) std::atomic<std::uint32_t> spinning_{0};  // idle workers spinning (0 or 1)
  std::atomic<std::uint32_t> polling_{0};               // idle workers in short, timed sleeps
  std::atomic<std::uint32_t> long_polling_{0};          // of those, in sleeps of long_poll or more
  std::atomic<std::uint32_t> sleepers_{0};              // idle workers sleeping until woken
  std::atomic<bool> stopping_{false};
  std::mutex rest_lock_;  // guards wake_tokens_; pairs with resting_
  std::condition_variable resting_;
  std::uint32_t wake_tokens_ = 0;
};

}  // namespace strata::runtime
