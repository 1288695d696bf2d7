// The default BlockRunner for a CPU device used outside the runtime: a few persistent threads
// and the calling thread take blocks from a shared counter. (oneTBB's parallel_for would do,
// but Debian's oneTBB is not built for the thread sanitizer, whose reports from its inlined
// headers could then only be silenced together with real races in kernel bodies.)
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "strata/base/thread_name.hpp"
#include "strata/device/backends.hpp"

namespace strata::device {
namespace {

class ThreadBlockRunner final : public BlockRunner {
 public:
  explicit ThreadBlockRunner(unsigned helpers) {
    for (unsigned i = 0; i < helpers; ++i)
      threads_.emplace_back([this] { help(); });
  }

  ~ThreadBlockRunner() override {
    {
      std::lock_guard guard(lock_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (auto& thread : threads_)
      thread.join();
  }

  void run(std::uint64_t blocks, const std::function<void(std::uint64_t)>& body) override {
    std::lock_guard one_launch(run_lock_);
    {
      std::lock_guard guard(lock_);
      body_ = &body;
      blocks_ = blocks;
      next_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      ++generation_;
    }
    work_cv_.notify_all();
    take_blocks();
    std::unique_lock guard(lock_);
    done_cv_.wait(guard, [this] { return active_ == 0; });
    body_ = nullptr;  // late helpers see no job
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void take_blocks() {
    for (;;) {
      const std::uint64_t block = next_.fetch_add(1, std::memory_order_relaxed);
      if (block >= blocks_) return;
      try {
        (*body_)(block);
      } catch (...) {
        std::lock_guard guard(lock_);
        if (!error_) error_ = std::current_exception();
        next_.store(blocks_, std::memory_order_relaxed);  // skip the rest
      }
    }
  }

  void help() {
    name_this_thread("cpu blocks");
    std::uint64_t seen = 0;
    std::unique_lock guard(lock_);
    for (;;) {
      work_cv_.wait(guard, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (body_ == nullptr) continue;
      ++active_;
      guard.unlock();
      take_blocks();
      guard.lock();
      if (--active_ == 0) done_cv_.notify_all();
    }
  }

  std::mutex run_lock_;
  std::mutex lock_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  const std::function<void(std::uint64_t)>* body_ = nullptr;
  std::uint64_t blocks_ = 0;
  std::atomic<std::uint64_t> next_{0};
  std::uint64_t generation_ = 0;
  unsigned active_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace

std::shared_ptr<BlockRunner> default_block_runner() {
  return std::make_shared<ThreadBlockRunner>(std::max(1u, std::thread::hardware_concurrency()) - 1);
}

}  // namespace strata::device
