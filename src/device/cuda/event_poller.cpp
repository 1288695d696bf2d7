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

std::chrono::microseconds poll_pause(std::chrono::nanoseconds waited) {
  using std::chrono::microseconds;
  return std::clamp(std::chrono::duration_cast<microseconds>(waited / 64), microseconds{5},
                    microseconds{200});
}

void EventPoller::watch(std::shared_ptr<Pollable> item) {
  {
    std::lock_guard guard(lock_);
    items_.push_back({std::move(item), std::chrono::steady_clock::now()});
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
  std::vector<Watched> round;
  for (;;) {
    {
      std::unique_lock guard(lock_);
      wake_.wait(guard, [this] { return stopping_ || !items_.empty(); });
      if (stopping_) return;
      round.swap(items_);
      fresh_ = false;
    }
    // check() may complete events whose callbacks call watch(): no lock held here.
    std::vector<Watched> unfinished;
    auto youngest = std::chrono::steady_clock::time_point::min();
    for (auto& watched : round) {
      if (!watched.item->check()) {
        youngest = std::max(youngest, watched.since);
        unfinished.push_back(std::move(watched));
      }
    }
    round.clear();
    if (unfinished.empty()) continue;
    std::unique_lock guard(lock_);
    items_.insert(items_.end(), std::make_move_iterator(unfinished.begin()),
                  std::make_move_iterator(unfinished.end()));
    // A newly watched item is asked at once.
    wake_.wait_for(guard, poll_pause(std::chrono::steady_clock::now() - youngest),
                   [this] { return stopping_ || fresh_; });
  }
}

}  // namespace strata::device::cuda
