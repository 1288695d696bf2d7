#pragma once
// One host thread that completes watched native events: it asks each whether it finished and,
// while any are unfinished, sleeps between rounds for 1/64 of the time the youngest pending item
// can have been running (5 µs to 200 µs; poll_pause), so an event is seen finished at most about
// 1.6 % of its duration late while long waits cost few wake-ups. An item queued behind others on
// its stream counts as running only from when the one before it was seen finished: a queue of
// twenty 1 ms kernels is seen at 1 ms/64 each, not at the 200 µs that their time since being
// watched would give the last ones. Items of one lane (the events of one CUDA stream) finish in
// their order, so a round asks only each lane's oldest unfinished item (PendingEvents). CUDA
// forbids CUDA calls in stream callbacks (cudaLaunchHostFunc), and event callbacks may enqueue
// more work, so completions run here instead. Generic over Pollable so it is tested without a
// GPU.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "pending_events.hpp"

namespace strata::device::cuda {

// The pause before the next round when the youngest pending item can have been running for
// `waited` (PendingEvents::Round::youngest_start).
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
  // Items watched and not yet seen finished.
  std::size_t watched() const { return watched_.load(); }

 private:
  using Clock = PendingEvents::Clock;
  using Watched = PendingEvents::Watched;
  void serve();

  std::mutex lock_;
  std::condition_variable wake_;
  std::vector<Watched> incoming_;  // watched since the serving thread last took them
  bool stopping_ = false;
  std::atomic<std::size_t> watched_{0};
  std::thread thread_;
};

}  // namespace strata::device::cuda
