#pragma once
// An in-order queue on a thread of its own, as a device's queue: work runs in the order it was
// enqueued. Completions are reported by the queue's thread, or, for every `late_every`-th item, by
// a second thread after a pause, so that they arrive out of order as device callbacks may.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "strata/runtime/task.hpp"

namespace strata::runtime::testing {

class FakeQueue {
 public:
  explicit FakeQueue(unsigned late_every = 0) : late_every_(late_every) {}
  ~FakeQueue() {
    {
      std::lock_guard guard(lock_);
      stopping_ = true;
    }
    changed_.notify_all();
    queue_thread_.join();  // drains its items, then lets the late thread end
    late_thread_.join();
  }
  FakeQueue(const FakeQueue&) = delete;
  FakeQueue& operator=(const FakeQueue&) = delete;

  // Runs `work` after everything enqueued before it; `done` fails with what `work` threw.
  void enqueue(std::function<void()> work, DeferredCompletion done) {
    {
      std::lock_guard guard(lock_);
      items_.push_back({std::move(work), std::move(done), nullptr});
    }
    changed_.notify_all();
  }

 private:
  struct Item {
    std::function<void()> work;
    DeferredCompletion done;
    std::exception_ptr error;
  };

  static void report(Item& item) {
    if (item.error) {
      item.done.fail(item.error);
    } else {
      item.done.complete();
    }
  }

  void run_items() {
    unsigned count = 0;
    std::unique_lock guard(lock_);
    while (true) {
      changed_.wait(guard, [this] { return stopping_ || !items_.empty(); });
      if (items_.empty()) {
        queue_done_ = true;
        changed_.notify_all();
        return;
      }
      Item item = std::move(items_.front());
      items_.pop_front();
      guard.unlock();
      try {
        item.work();
      } catch (...) {
        item.error = std::current_exception();
      }
      guard.lock();
      if (late_every_ != 0 && ++count % late_every_ == 0) {
        late_.push_back(std::move(item));
        changed_.notify_all();
        continue;
      }
      guard.unlock();
      report(item);
      guard.lock();
    }
  }

  void report_late() {
    std::unique_lock guard(lock_);
    while (true) {
      changed_.wait(guard, [this] { return queue_done_ || !late_.empty(); });
      if (late_.empty()) return;
      Item item = std::move(late_.front());
      late_.pop_front();
      guard.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      report(item);
      guard.lock();
    }
  }

  const unsigned late_every_;
  std::mutex lock_;
  std::condition_variable changed_;
  std::deque<Item> items_;
  std::deque<Item> late_;
  bool stopping_ = false;
  bool queue_done_ = false;
  std::thread queue_thread_{[this] { run_items(); }};
  std::thread late_thread_{[this] { report_late(); }};
};

}  // namespace strata::runtime::testing
