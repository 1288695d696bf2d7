#include "strata/runtime/thread_pool_executor.hpp"

#include <pthread.h>

namespace strata::runtime {

Executor::Executor(std::string name, unsigned workers)
    : name_(std::move(name)), counters_(workers == 0 ? 1 : workers) {}

Executor::~Executor() = default;

WorkerIdentity& current_worker() {
  thread_local WorkerIdentity identity;
  return identity;
}

ThreadPoolExecutor::ThreadPoolExecutor(std::string name, unsigned threads,
                                       std::unique_ptr<SchedulingPolicy> policy)
    : Executor(std::move(name), threads), policy_(std::move(policy)) {
  policy_->configure(worker_count());
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  stop();
}

void ThreadPoolExecutor::start(TaskRunner& runner) {
  runner_ = &runner;
  for (unsigned worker = 0; worker < worker_count(); ++worker) {
    threads_.emplace_back([this, worker] { work(worker); });
  }
}

void ThreadPoolExecutor::enqueue(ReadyTask* task) {
  const WorkerIdentity& me = current_worker();
  policy_->push(task, me.executor == this ? static_cast<int>(me.worker) : -1);
  wake_one();
}

void ThreadPoolExecutor::wake_one() {
  if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
  wake_epoch_.fetch_add(1, std::memory_order_seq_cst);
  wake_epoch_.notify_one();
}

bool ThreadPoolExecutor::run_one(unsigned worker) {
  ReadyTask* task = policy_->pop(worker);
  if (task == nullptr) return false;
  runner_->run(task, *this, worker);
  return true;
}

void ThreadPoolExecutor::work(unsigned worker) {
  current_worker() = {this, worker};
  const std::string thread_name = (name() + "/" + std::to_string(worker)).substr(0, 15);
  pthread_setname_np(pthread_self(), thread_name.c_str());
  constexpr int spins_before_sleep = 64;
  int idle_rounds = 0;
  while (true) {
    if (run_one(worker)) {
      idle_rounds = 0;
      continue;
    }
    if (++idle_rounds < spins_before_sleep) {
      std::this_thread::yield();
      continue;
    }
    idle_rounds = 0;
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    const std::uint32_t epoch = wake_epoch_.load(std::memory_order_seq_cst);
    if (policy_->size() == 0) {
      if (stopping_.load(std::memory_order_acquire)) {
        sleepers_.fetch_sub(1, std::memory_order_seq_cst);
        break;
      }
      wake_epoch_.wait(epoch, std::memory_order_seq_cst);
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }
  current_worker() = {};
}

void ThreadPoolExecutor::stop() {
  if (stopping_.exchange(true)) return;
  wake_epoch_.fetch_add(1, std::memory_order_seq_cst);
  wake_epoch_.notify_all();
  for (auto& thread : threads_)
    thread.join();
  threads_.clear();
}

}  // namespace strata::runtime
