#include "ordered_issuer.hpp"

namespace strata::device::cuda {

void OrderedIssuer::submit(std::vector<Event> host_waits, Issue issue) {
  std::unique_lock guard(lock_);
  if (closed_) {
    guard.unlock();
    issue(closed_reason_);
    return;
  }
  if (host_waits.empty() && pending_.empty() && !issuing_) {
    // Fast path: nothing to wait for and nobody ahead.
    issuing_ = true;
    guard.unlock();
    try {
      issue(nullptr);
    } catch (...) {
      guard.lock();
      drain(guard);
      throw;
    }
    guard.lock();
    drain(guard);
    return;
  }
  auto pending = std::make_shared<Pending>();
  pending->issue = std::move(issue);
  pending->remaining = host_waits.size();
  pending_.push_back(pending);
  guard.unlock();
  // on_complete may run the callback at once, on this thread; it takes the lock itself.
  for (const Event& event : host_waits) {
    event.on_complete([self = shared_from_this(), pending](std::exception_ptr error) {
      self->dependency_done(pending, std::move(error));
    });
  }
  guard.lock();
  if (!issuing_) {
    issuing_ = true;
    drain(guard);
  }
}

void OrderedIssuer::dependency_done(const std::shared_ptr<Pending>& pending,
                                    std::exception_ptr error) {
  {
    std::lock_guard hold(pending->lock);
    if (error && !pending->error) pending->error = std::move(error);
    --pending->remaining;
  }
  std::unique_lock guard(lock_);
  if (issuing_) return;  // the issuing thread re-checks the head after each operation
  issuing_ = true;
  drain(guard);
}

bool OrderedIssuer::ready(Pending& pending) {
  std::lock_guard hold(pending.lock);
  return pending.remaining == 0;
}

// Called holding `guard` with issuing_ set; issues ready operations from the head, in order,
// and clears issuing_ when the head is not ready.
void OrderedIssuer::drain(std::unique_lock<std::mutex>& guard) {
  while (!pending_.empty() && !closed_ && ready(*pending_.front())) {
    auto head = std::move(pending_.front());
    pending_.pop_front();
    guard.unlock();
    std::exception_ptr error;
    {
      std::lock_guard hold(head->lock);
      error = head->error;
    }
    try {
      head->issue(error);
    } catch (...) {
      // An issue function reports its own failures through its event; nothing to do here.
    }
    guard.lock();
  }
  issuing_ = false;
  idle_cv_.notify_all();
}

void OrderedIssuer::close(std::exception_ptr reason) {
  std::deque<std::shared_ptr<Pending>> dropped;
  {
    std::unique_lock guard(lock_);
    closed_ = true;
    closed_reason_ = reason;
    dropped.swap(pending_);
    idle_cv_.wait(guard, [this] { return !issuing_; });
  }
  for (auto& pending : dropped)
    pending->issue(reason);
}

std::size_t OrderedIssuer::held_back() {
  std::lock_guard guard(lock_);
  return pending_.size();
}

}  // namespace strata::device::cuda
