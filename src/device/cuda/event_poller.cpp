#include "event_poller.hpp"

#include <algorithm>
#include <chrono>

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

void EventPoller::watch(std::shared_ptr<Pollable> item) {
  {
    std::lock_guard guard(lock_);
    items_.push_back(std::move(item));
    fresh_ = true;
    if (!thread_.joinable()) thread_ = std::thread([this] { serve(); });
  }
  wake_.notify_one();
}

std::size_t EventPoller::watched() {
  std::lock_guard guard(lock_);
  return items_.size();
}

void EventPoller::serve() {
  using std::chrono::microseconds;
  microseconds pause{5};
  std::vector<std::shared_ptr<Pollable>> round;
  for (;;) {
    {
      std::unique_lock guard(lock_);
      wake_.wait(guard, [this] { return stopping_ || !items_.empty(); });
      if (stopping_) return;
      round.swap(items_);
      fresh_ = false;
    }
    // check() may complete events whose callbacks call watch(): no lock held here.
    std::vector<std::shared_ptr<Pollable>> unfinished;
    bool progress = false;
    for (auto& item : round) {
      if (item->check()) {
        progress = true;
      } else {
        unfinished.push_back(std::move(item));
      }
    }
    round.clear();
    if (unfinished.empty()) continue;
    std::unique_lock guard(lock_);
    items_.insert(items_.end(), std::make_move_iterator(unfinished.begin()),
                  std::make_move_iterator(unfinished.end()));
    // Back off while nothing finishes; a newly watched item is asked at once.
    pause = progress ? microseconds{5} : std::min(pause * 2, microseconds{200});
    wake_.wait_for(guard, pause, [this] { return stopping_ || fresh_; });
  }
}

}  // namespace strata::device::cuda
