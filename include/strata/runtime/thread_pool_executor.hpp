#pragma once
// ThreadPoolExecutor: an executor with its own threads and a scheduling policy (the CPU pool
// with work stealing, the I/O pool with priority FIFO). Idle threads go through three stages: one
// at a time spins for new work (yielding its core to any other runnable thread; see IdleSpin for
// how long), others poll with growing sleeps, then they sleep until woken. A task is queued without
// a wake-up while some worker spins or polls, so a stream of small tasks costs no sleep/wake system
// calls and idle workers leave the cores to the submitter.
//
// A worker is a slot (its deque, counters and busy time) served by one thread at a time. When a
// task blocks in a wait, its thread hands the worker to a stand-in (a parked spare thread, or a
// new one) and takes it back between two of the stand-in's tasks once the wait is over; so a
// blocked task holds back no other task, and the pool runs up to `threads` tasks at a time that
// are not blocked.
//
// A worker whose queue is empty pulls from the runtime's shared pool of multi-candidate tasks
// (TaskRunner::pull()) when the placement policy pulls; executors registered as a device's compute
// queue (set_kind()) are ThreadPoolExecutors too.

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
  bool stands_in() const override { return true; }
  bool pulls() const override { return true; }
  void notify_work() override { wake_one(); }
  void suspend_worker(unsigned worker) override;
  void resume_worker(unsigned worker) override;
  unsigned lane_count() const override;

 private:
  // What an idle worker's spin for work saw: whether work came, and when the spin began to last
  // (0 if it did not last long enough to read the clock).
  struct Spin {
    bool found = false;
    std::uint64_t idle_since = 0;
  };
  struct Thread;
  // The pool thread the calling thread is, if any.
  static thread_local Thread* current_thread_;
  void thread_main(Thread* self);
  // Serves `worker` until the pool stops (false) or a resumer takes the worker back (true).
  bool serve(Thread* self, unsigned worker);
  Spin spin_for_work(unsigned worker);
  // Polls, then sleeps, until there is work or `worker` is wanted back; false once stopping and
  // drained.
  bool rest(unsigned worker);
  void wake_one();
  bool wanted_back(unsigned worker) const {
    return resume_wanted_[worker].load(std::memory_order_acquire);
  }
  // Whether an idle worker has something to do: queued tasks, or pooled ones it may pull.
  bool work_available() const { return policy_->size() != 0 || runner_->pull_ready(*this); }
  // Gives `worker` to a thread whose wait is over, else to a spare thread (started if none is
  // parked). Called with handoff_lock_ held by the thread that stops serving `worker`.
  void give_worker(unsigned worker);
  // At a task boundary: hands `worker` to a waiting resumer, if any (ending the busy period).
  bool hand_back(unsigned worker, bool busy);
  // Gives `worker` to the oldest of its resumers (there is one); handoff_lock_ held.
  void pass_to_resumer(unsigned worker);

  std::unique_ptr<SchedulingPolicy> policy_;
  const IdleSpin idle_spin_;
  TaskRunner* runner_ = nullptr;
  // Every thread the pool started (guarded by handoff_lock_; its size is read without it).
  std::mutex handoff_lock_;
  std::vector<std::unique_ptr<Thread>> threads_;
  std::atomic<unsigned> thread_count_{0};
  std::vector<Thread*> spares_;  // threads without a worker, parked
  // Per worker: threads whose wait is over, waiting to serve it again (oldest first).
  std::vector<std::vector<Thread*>> resumers_;
  std::unique_ptr<std::atomic<bool>[]> resume_wanted_;  // per worker: resumers_ is not empty
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
