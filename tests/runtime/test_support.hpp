#pragma once
// Helpers shared by the runtime tests: small configurations and a gate tasks can block on.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <latch>
#include <mutex>
#include <thread>

#include "strata/base/config.hpp"
#include "strata/runtime/task.hpp"

namespace strata::runtime::testing {

inline Config small_config(unsigned cpu_threads = 2, unsigned io_threads = 1) {
  Config config;
  config.section<runtime::RuntimeSettings>().cpu_threads = cpu_threads;
  config.section<runtime::RuntimeSettings>().io_threads = io_threads;
  return config;
}

// A gate that blocks tasks until the test opens it.
class Gate {
 public:
  void open() {
    std::lock_guard guard(lock_);
    open_ = true;
    changed_.notify_all();
  }
  void pass() {
    std::unique_lock guard(lock_);
    changed_.wait(guard, [this] { return open_; });
  }

 private:
  std::mutex lock_;
  std::condition_variable changed_;
  bool open_ = false;
};

// Spins (with sleeps) until `condition` holds or 10 s passed; returns whether it held.
template <class Condition>
bool eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Makes the first pooled task of the CPU pool and of the gpu wait for each other, so that both
// executors take part however fast the other drains the pool (the tasks are empty).
class BothTakePart {
 public:
  BothTakePart(ExecutorId cpu, ExecutorId gpu) : cpu_(cpu), gpu_(gpu) {}
  void arrive(ExecutorId executor) {
    std::atomic<bool>& first = executor == cpu_ ? cpu_started_ : gpu_started_;
    if (executor != cpu_ && executor != gpu_) return;
    if (!first.exchange(true)) both_.arrive_and_wait();
  }

 private:
  ExecutorId cpu_, gpu_;
  std::atomic<bool> cpu_started_{false}, gpu_started_{false};
  std::latch both_{2};
};

}  // namespace strata::runtime::testing
