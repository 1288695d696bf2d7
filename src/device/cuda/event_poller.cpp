#include "event_poller.hpp"

#include <sys/prctl.h>

#include <algorithm>

#include "strata/base/thread_name.hpp"

namespace strata::device::cuda {

EventPoller::~EventPoller() {
  {
    std::lock_guard guard(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

EventPoller& EventPoller::instance() {
  static EventPoller poller;
  return poller;
}

std::chrono::microseconds poll_pause(std::chrono::nanoseconds waited) {
  using std::chrono::microseconds;
  return std::clamp(std::chrono::duration_cast<microseconds>(waited / 64), microseconds{5},
                    microseconds{200});
}

void EventPoller::watch(std::shared_ptr<Pollable> item) {
  const PollOrder order = item->order();
  ++watched_;
  {
    std::lock_guard guard(lock_);
    incoming_.push_back({std::move(item), Clock::now(), order});
    if (!thread_.joinable()) thread_ = std::thread([this] { serve(); });
  }
  wake_.notify_one();
}

void EventPoller::serve() {
  name_this_thread("cuda events");
  // Linux lets a sleeping thread oversleep by its timer slack, 50 µs by default: ten times the
  // shortest pause. 1 µs keeps the pauses what poll_pause says.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  PendingEvents pending;
  std::vector<Watched> arrived;
  Clock::time_point youngest_start;
  for (;;) {
    {
      std::unique_lock guard(lock_);
      const auto woken = [this] { return stopping_ || !incoming_.empty(); };
      if (pending.empty()) {
        wake_.wait(guard, woken);
      } else {
        // A newly watched item is asked at once.
        wake_.wait_for(guard, poll_pause(Clock::now() - youngest_start), woken);
      }
      if (stopping_) return;
      arrived.swap(incoming_);
    }
    for (auto& watched : arrived)
      pending.add(std::move(watched));
    arrived.clear();
    // check() may complete events whose callbacks call watch(): no lock held here.
    const PendingEvents::Round round = pending.round(Clock::now());
    watched_ -= round.finished;
    youngest_start = round.youngest_start;
  }
}

}  // namespace strata::device::cuda
