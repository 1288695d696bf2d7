#include "strata/memory/io_threads.hpp"

#include <algorithm>

#include "strata/base/thread_name.hpp"

namespace strata::memory {

IoThreads::IoThreads(unsigned threads) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i)
    threads_.emplace_back([this] { serve(); });
}

IoThreads::~IoThreads() {
  {
    std::lock_guard guard(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_)
    thread.join();
}

void IoThreads::run(std::function<void()> job) {
  {
    std::lock_guard guard(lock_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void IoThreads::serve() {
  name_this_thread("memory io");
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock guard(lock_);
      wake_.wait(guard, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace strata::memory
