#pragma once
// A few threads of their own for disk I/O without a runtime (the memory manager's spills, a box
// store's staged writes): jobs start in the order given, so that disk I/O never runs on a copy
// queue's thread or on the thread that asked for it.

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
