#pragma once
// The event poller's unfinished items and one round of questions over them: items of one lane
// (the events of one CUDA stream) finish in order, so a round asks each lane's oldest unfinished
// item and, after one finished, the next. It also says since when the youngest pending item can
// have been running, from which the poller sizes its pause (poll_pause).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
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

class PendingEvents {
 public:
  using Clock = std::chrono::steady_clock;
  struct Watched {
    std::shared_ptr<Pollable> item;
    Clock::time_point since;  // when it was watched
    PollOrder order;
  };
  struct Round {
    std::size_t finished = 0;
    // The latest time at which a pending item can have started running: an unordered item when
    // it was watched, a lane's oldest item when it was watched or when the item before it was
    // seen finished, whichever is later (it ran behind that one). Clock::time_point::min() when
    // nothing is pending.
    Clock::time_point youngest_start = Clock::time_point::min();
  };

  void add(Watched watched);
  bool empty() const { return lanes_.empty() && unordered_.empty(); }
  // Asks each unordered item and each lane's items from the oldest until one is unfinished;
  // `now` is when the round began.
  Round round(Clock::time_point now);

 private:
  // A lane's unfinished items by sequence, and when one of its items was last seen finished.
  struct Lane {
    std::multimap<std::uint64_t, Watched> items;
    Clock::time_point last_finished = Clock::time_point::min();
  };
  std::map<const void*, Lane> lanes_;
  std::vector<Watched> unordered_;
};

}  // namespace strata::device::cuda
