#pragma once
// Keeps a CUDA queue's operations in submission order when some of them must first wait, on the
// host, for events a CUDA stream cannot wait on (other backends' events, Event::manual()).
//
// Each operation is an `Issue` function that puts the operation on the stream (or, given a
// dependency's error, fails it instead). Operations are issued one at a time, in submission
// order: an operation whose host-side events have not all completed holds back every later
// operation of the queue. Nothing blocks: the operation is issued by the thread that completes
// its last event (from that event's on_complete), or at once by the submitting thread. Issue
// functions run outside the lock, so they may complete events whose callbacks submit again.
// Pure C++ (no CUDA), so the ordering is tested without a GPU.

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "strata/device/event.hpp"

namespace strata::device::cuda {

class OrderedIssuer : public std::enable_shared_from_this<OrderedIssuer> {
 public:
  // Receives the first error among the operation's host-side events (nullptr: none).
  using Issue = std::function<void(std::exception_ptr dependency_error)>;

  // Issues `issue` after every event in `host_waits` completed and every earlier operation was
  // issued. Without waits and with nothing held back, it runs on this thread before returning.
  void submit(std::vector<Event> host_waits, Issue issue);
  // Fails every held-back operation with `reason`, waits for an issue running on another thread,
  // and issues nothing afterwards (the queue is going away). Not from inside an issue function.
  void close(std::exception_ptr reason);
  // Operations submitted but not yet issued.
  std::size_t held_back();

 private:
  struct Pending {
    Issue issue;
    std::mutex lock;
    std::size_t remaining = 0;
    std::exception_ptr error;
  };
  void dependency_done(const std::shared_ptr<Pending>& pending, std::exception_ptr error);
  void drain(std::unique_lock<std::mutex>& guard);
  static bool ready(Pending& pending);

  std::mutex lock_;
  std::condition_variable idle_cv_;  // issuing_ went false
  std::deque<std::shared_ptr<Pending>> pending_;
  bool issuing_ = false;  // one thread issues at a time, in order
  bool closed_ = false;
  std::exception_ptr closed_reason_;
};

}  // namespace strata::device::cuda
