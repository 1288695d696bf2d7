#include "pending_events.hpp"

#include <algorithm>

namespace strata::device::cuda {

void PendingEvents::add(Watched watched) {
  if (watched.order.lane == nullptr) {
    unordered_.push_back(std::move(watched));
    return;
  }
  lanes_[watched.order.lane].items.emplace(watched.order.sequence, std::move(watched));
}

PendingEvents::Round PendingEvents::round(Clock::time_point now) {
  Round result;
  std::erase_if(unordered_, [&](Watched& watched) {
    if (watched.item->check()) {
      ++result.finished;
      return true;
    }
    result.youngest_start = std::max(result.youngest_start, watched.since);
    return false;
  });
  for (auto lane = lanes_.begin(); lane != lanes_.end();) {
    auto& items = lane->second.items;
    while (!items.empty() && items.begin()->second.item->check()) {
      items.erase(items.begin());
      lane->second.last_finished = now;
      ++result.finished;
    }
    if (items.empty()) {
      lane = lanes_.erase(lane);
    } else {
      const auto head_start = std::max(items.begin()->second.since, lane->second.last_finished);
      result.youngest_start = std::max(result.youngest_start, head_start);
      ++lane;
    }
  }
  return result;
}

}  // namespace strata::device::cuda
