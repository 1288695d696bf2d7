#include "strata/device/event.hpp"

namespace strata::device {

void EventState::complete(std::exception_ptr error) {
  std::vector<std::function<void(std::exception_ptr)>> callbacks;
  {
    std::lock_guard guard(lock_);
    if (finished_) return;
    finished_ = true;
    error_ = error;
    callbacks.swap(callbacks_);
  }
  finished_cv_.notify_all();
  for (auto& callback : callbacks)
    callback(error);
}

bool EventState::done() {
  {
    std::lock_guard guard(lock_);
    if (finished_) return true;
    // With callbacks waiting, the backend's own thread completes the event (the native callback
    // or poller that arm() started): polling here would run them on the asking thread, which
    // may hold a lock they take (the memory manager asks under its lock; on a GPU that deadlocked).
    // A callback being attached now waits for the polls under way; none starts meanwhile.
    if (armed_ || attaching_ > 0) return false;
    ++polling_;
  }
  const auto poll_ended = [this] {
    std::lock_guard guard(lock_);
    if (--polling_ == 0 && attaching_ > 0) finished_cv_.notify_all();
    return finished_;
  };
  try {
    poll();
  } catch (...) {
    poll_ended();
    throw;
  }
  return poll_ended();
}

void EventState::wait() {
  std::unique_lock guard(lock_);
  finished_cv_.wait(guard, [this] { return finished_; });
  if (error_) std::rethrow_exception(error_);
}

void EventState::on_complete(std::function<void(std::exception_ptr)> callback) {
  bool arm_now = false;
  {
    std::unique_lock guard(lock_);
    if (!finished_ && polling_ > 0) {
      // A poll may complete the event: attached before it ends, the callback would run on the
      // polling thread (see done()).
      ++attaching_;
      finished_cv_.wait(guard, [this] { return polling_ == 0; });
      --attaching_;
    }
    if (!finished_) {
      callbacks_.push_back(std::move(callback));
      arm_now = !armed_;
      armed_ = true;
      callback = nullptr;
    }
  }
  if (callback) {
    callback(error());
    return;
  }
  if (arm_now) arm();
}

std::exception_ptr EventState::error() {
  std::lock_guard guard(lock_);
  return error_;
}

Event Event::manual() {
  return Event(std::make_shared<EventState>());
}

void Event::on_complete(std::function<void(std::exception_ptr)> callback) const {
  if (!state_) {
    callback(nullptr);
    return;
  }
  state_->on_complete(std::move(callback));
}

void wait_all(const std::vector<Event>& events) {
  std::exception_ptr first;
  for (const Event& event : events) {
    try {
      event.wait();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

Event when_all(const std::vector<Event>& events) {
  std::vector<Event> pending;
  for (const Event& event : events) {
    if (!event) continue;
    if (event.done()) {
      if (auto error = event.state()->error()) {
        Event failed = Event::manual();
        failed.state()->complete(error);
        return failed;
      }
      continue;
    }
    pending.push_back(event);
  }
  if (pending.empty()) return Event();
  if (pending.size() == 1) return pending.front();
  // The joined event; the last completion completes it with the first error seen.
  struct Join {
    std::mutex lock;
    std::size_t left;
    std::exception_ptr first;
  };
  Event all = Event::manual();
  auto join = std::make_shared<Join>();
  join->left = pending.size();
  for (const Event& event : pending) {
    event.on_complete([join, state = all.shared()](std::exception_ptr error) {
      std::exception_ptr result;
      {
        std::lock_guard guard(join->lock);
        if (error && !join->first) join->first = error;
        if (--join->left != 0) return;
        result = join->first;
      }
      state->complete(result);
    });
  }
  return all;
}

}  // namespace strata::device
