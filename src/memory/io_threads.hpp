#pragma once
// The memory manager's own spill I/O threads, for use without a runtime: jobs run in the order
// given, on a few threads of their own, so that disk I/O never runs on a copy queue's thread or
// on the thread that acquires.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::memory {

class IoThreads {
 public:
  explicit IoThreads(unsigned threads);
  // Runs the jobs still queued, then stops.
  ~IoThreads();
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  void run(std::function<void()> job);

 private:
  void serve();

  std::mutex lock_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace strata::memory
