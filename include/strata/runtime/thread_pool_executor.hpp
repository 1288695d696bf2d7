#pragma once
// ThreadPoolExecutor: an executor with its own threads and a scheduling policy (the CPU pool
// with work stealing, the I/O pool with priority FIFO). Idle threads sleep; none spins.

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "strata/runtime/executor.hpp"
#include "strata/runtime/scheduling_policy.hpp"

namespace strata::runtime {

class ThreadPoolExecutor final : public Executor {
 public:
  ThreadPoolExecutor(std::string name, unsigned threads, std::unique_ptr<SchedulingPolicy> policy);
  ~ThreadPoolExecutor() override;

  void start(TaskRunner& runner) override;
  void enqueue(ReadyTask* task) override;
  std::size_t queued() const override { return policy_->size(); }
  bool run_one(unsigned worker) override;
  void stop() override;

 private:
  void work(unsigned worker);
  void wake_one();

  std::unique_ptr<SchedulingPolicy> policy_;
  TaskRunner* runner_ = nullptr;
  std::vector<std::thread> threads_;
  std::atomic<std::uint32_t> wake_epoch_{0};
  std::atomic<std::uint32_t> sleepers_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace strata::runtime
