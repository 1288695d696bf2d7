#pragma once
// One host thread that completes watched native events: it asks each whether it finished and,
// while any are unfinished, sleeps between rounds for 1/64 of the time the youngest unfinished
// item has been watched (5 µs to 200 µs; poll_pause), so an event is seen finished at most about
// 1.6 % of its duration late (a fixed back-off to 200 µs added ~100 µs to each dependent 1 ms
// kernel on an H200) while long waits cost few wake-ups. Items of one lane (the events of one
// CUDA stream) finish in their order, so a round asks only each lane's oldest unfinished item:
// a round costs one question a lane plus one a finished item, however many thousands of
// operations are queued behind. CUDA forbids CUDA calls in stream callbacks
// (cudaLaunchHostFunc), and event callbacks may enqueue more work, so completions run here
// instead. Generic over Pollable so it is tested without a GPU.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::device::cuda {

// Where an item stands among items that finish in order: within `lane`, an item finishes only
// after every item of a lower `sequence`. No lane (nullptr): it is asked on its own every round.
struct PollOrder {
  const void* lane = nullptr;
  std::uint64_t sequence = 0;
};

// Something the poller can ask: returns true once it finished (and completed itself).
class Pollable {
 public:
  virtual ~Pollable() = default;
  virtual bool check() = 0;
  // Read once, when the item is watched.
  virtual PollOrder order() { return {}; }
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
  // Items watched and not yet seen finished.
  std::size_t watched() const { return watched_.load(); }

 private:
  using Clock = std::chrono::steady_clock;
  struct Watched {
    std::shared_ptr<Pollable> item;
    Clock::time_point since;
    PollOrder order;
  };
  // A lane's unfinished items by sequence, and when the latest of them was watched.
  struct Lane {
    std::multimap<std::uint64_t, Watched> items;
    Clock::time_point youngest;
  };
  // The serving thread's own state: only it reads or writes these.
  struct Pending {
    std::map<const void*, Lane> lanes;
    std::vector<Watched> unordered;
    void add(Watched watched);
    bool empty() const { return lanes.empty() && unordered.empty(); }
    // Asks each unordered item and each lane's items from the oldest until one is unfinished;
    // returns how many finished and when the youngest item still pending was watched.
    std::size_t round(Clock::time_point& youngest);
  };
  void serve();

  std::mutex lock_;
  std::condition_variable wake_;
  std::vector<Watched> incoming_;  // watched since the serving thread last took them
  bool stopping_ = false;
  std::atomic<std::size_t> watched_{0};
  std::thread thread_;
};

}  // namespace strata::device::cuda
