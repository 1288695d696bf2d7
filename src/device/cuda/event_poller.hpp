#pragma once
// One host thread that completes watched native events: it asks each whether it finished and,
// while any are unfinished, sleeps a little longer each round (5 µs up to 200 µs). CUDA forbids
// CUDA calls in stream callbacks (cudaLaunchHostFunc), and event callbacks may enqueue more
// work, so completions run here instead. Generic over Pollable so it is tested without a GPU.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::device::cuda {

// Something the poller can ask: returns true once it finished (and completed itself).
class Pollable {
 public:
  virtual ~Pollable() = default;
  virtual bool check() = 0;
};

class EventPoller {
 public:
  EventPoller() = default;
  ~EventPoller();  // stops the thread; unfinished watched items are dropped
  EventPoller(const EventPoller&) = delete;
  EventPoller& operator=(const EventPoller&) = delete;

  // The process's poller, started on first use.
  static EventPoller& instance();
  // Asks `item` until it finished, then drops it.
  void watch(std::shared_ptr<Pollable> item);
  std::size_t watched();

 private:
  void serve();

  std::mutex lock_;
  std::condition_variable wake_;
  std::vector<std::shared_ptr<Pollable>> items_;
  bool stopping_ = false;
  bool fresh_ = false;  // an item arrived since the last round
  std::thread thread_;
};

}  // namespace strata::device::cuda
