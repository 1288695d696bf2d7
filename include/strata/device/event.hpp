#pragma once
// Events: completion of an asynchronous device operation (a copy, a kernel), shared by whoever
// waits on it, chains on it, or attaches a callback.

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace strata::device {

// Shared completion state of one operation. Backends derive from it to keep their native event
// (cl_event, cudaEvent_t) and override wait() / poll() where the native API is cheaper.
class EventState {
 public:
  virtual ~EventState() = default;
  // Marks the operation finished (error: nullptr on success) and runs the callbacks.
  void complete(std::exception_ptr error = nullptr);
  // Whether it finished. Never runs callbacks: once one is attached, only the backend's thread
  // completes the event, so this may say false a little after the device finished.
  bool done();
  // Blocks until finished; rethrows the operation's error.
  virtual void wait();
  // Runs `callback` once finished (at once, on this thread, if already finished).
  void on_complete(std::function<void(std::exception_ptr)> callback);
  std::exception_ptr error();

 protected:
  // Called by done() while unfinished and without callbacks: a backend may ask its native event
  // and complete().
  virtual void poll() {}
  // Called by the first on_complete() on an unfinished event: a backend arranges that
  // complete() is called (a native callback); by default someone calls complete() anyway.
  virtual void arm() {}

 private:
  std::mutex lock_;
  std::condition_variable finished_cv_;
  bool finished_ = false;
  bool armed_ = false;
  unsigned polling_ = 0;    // done() calls in poll(): callbacks are attached after them
  unsigned attaching_ = 0;  // on_complete() calls waiting for those polls to end
  std::exception_ptr error_;
  std::vector<std::function<void(std::exception_ptr)>> callbacks_;
};

// A handle on an EventState; empty handles count as already complete.
class Event {
 public:
  Event() = default;
  explicit Event(std::shared_ptr<EventState> state) : state_(std::move(state)) {}
  // An event completed by complete() on its state (host-side work, tests, gates).
  static Event manual();

  bool done() const { return !state_ || state_->done(); }
  void wait() const {
    if (state_) state_->wait();
  }
  void on_complete(std::function<void(std::exception_ptr)> callback) const;
  EventState* state() const { return state_.get(); }
  const std::shared_ptr<EventState>& shared() const { return state_; }
  explicit operator bool() const { return static_cast<bool>(state_); }

 private:
  std::shared_ptr<EventState> state_;
};

// Waits for every event; rethrows the first error.
void wait_all(const std::vector<Event>& events);

// An event that completes once every one of `events` has, with the first error among them
// (an empty handle when there is nothing to wait for).
Event when_all(const std::vector<Event>& events);

}  // namespace strata::device
