#pragma once
// One host thread that completes watched native events: it asks each whether it finished and,
// while any are unfinished, sleeps between rounds for 1/64 of the time the youngest unfinished
// item has been watched (5 µs to 200 µs; poll_pause), so an event is seen finished at most about
// 1.6 % of its duration late (a fixed back-off to 200 µs added ~100 µs to each dependent 1 ms
// kernel on an H200) while long waits cost few wake-ups. CUDA forbids
// CUDA calls in stream callbacks (cudaLaunchHostFunc), and event callbacks may enqueue more
// work, so completions run here instead. Generic over Pollable so it is tested without a GPU.

#include <chrono>
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

// The pause before the next round when the youngest unfinished item was watched `waited` ago.
std::chrono::microseconds poll_pause(std::chrono::nanoseconds waited);

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
  struct Watched {
    std::shared_ptr<Pollable> item;
    std::chrono::steady_clock::time_point since;
  };
  std::vector<Watched> items_;
  bool stopping_ = false;
  bool fresh_ = false;  // an item arrived since the last round
  std::thread thread_;
};

}  // namespace strata::device::cuda
