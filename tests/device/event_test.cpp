#include "strata/device/event.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace strata::device {
namespace {

TEST(Event, EmptyEventCountsAsComplete) {
  Event none;
  EXPECT_TRUE(none.done());
  none.wait();
  bool called = false;
  none.on_complete([&](std::exception_ptr error) { called = error == nullptr; });
  EXPECT_TRUE(called);
}

TEST(Event, CallbacksRunOnceAtCompletionAndAtOnceAfterwards) {
  Event event = Event::manual();
  int before = 0, after = 0;
  event.on_complete([&](std::exception_ptr) { ++before; });
  EXPECT_FALSE(event.done());
  EXPECT_EQ(before, 0);
  event.state()->complete();
  event.state()->complete();  // a second completion is ignored
  EXPECT_EQ(before, 1);
  event.on_complete([&](std::exception_ptr) { ++after; });
  EXPECT_EQ(after, 1);
}

// A backend event whose native operation has finished: poll() completes it, like cudaEventQuery.
class FinishedNativeEvent : public EventState {
 protected:
  void poll() override { complete(); }
  void arm() override {}  // the backend's thread would complete it later
};

TEST(Event, DonePollsAnEventWithoutCallbacks) {
  Event event(std::make_shared<FinishedNativeEvent>());
  EXPECT_TRUE(event.done());
}

// The memory manager asks done() under its lock, and its callbacks take that lock: done() must
// leave the callbacks to the backend's thread (on a GPU this was a self-deadlock).
TEST(Event, DoneNeverRunsCallbacksOnTheAskingThread) {
  Event event(std::make_shared<FinishedNativeEvent>());
  std::thread::id ran_on;
  event.on_complete([&](std::exception_ptr) { ran_on = std::this_thread::get_id(); });
  EXPECT_FALSE(event.done());
  EXPECT_EQ(ran_on, std::thread::id());
  std::thread backend([&] { event.state()->complete(); });
  backend.join();
  EXPECT_TRUE(event.done());
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_NE(ran_on, std::thread::id());
}

// A native event whose poll takes a while (a driver call) and finds it finished.
class SlowlyPolledEvent : public EventState {
 public:
  std::atomic<bool> polling{false};
  std::atomic<bool> attaching{false};

 protected:
  void poll() override {
    polling = true;
    while (!attaching)
      std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the attach gets under way
    complete();
  }
  void arm() override {}
};

// A callback attached while done() polls must not run on the polling thread either: the poll
// may complete the event, and the poller may hold a lock the callback takes (CI: the memory
// manager's lock, in an array test on OpenCL).
TEST(Event, ACallbackAttachedDuringAPollRunsOnTheAttachingThread) {
  auto state = std::make_shared<SlowlyPolledEvent>();
  Event event(state);
  std::thread::id ran_on;
  std::thread::id attacher_id;
  std::thread attacher([&] {
    attacher_id = std::this_thread::get_id();
    while (!state->polling)
      std::this_thread::yield();
    state->attaching = true;
    event.on_complete([&](std::exception_ptr) { ran_on = std::this_thread::get_id(); });
  });
  const bool done = event.done();
  attacher.join();
  EXPECT_TRUE(done);
  EXPECT_EQ(ran_on, attacher_id);
}

TEST(Event, WaitRethrowsTheOperationsError) {
  Event event = Event::manual();
  std::thread completer(
      [&] { event.state()->complete(std::make_exception_ptr(std::runtime_error("copy failed"))); });
  EXPECT_THROW(event.wait(), std::runtime_error);
  completer.join();
  EXPECT_TRUE(event.done());
}

TEST(Event, WaitAllWaitsForEveryEventAndReportsTheFirstError) {
  std::vector<Event> events{Event::manual(), Event::manual(), Event::manual()};
  std::atomic<int> completed{0};
  std::thread completer([&] {
    for (std::size_t i = 0; i < events.size(); ++i) {
      completed.fetch_add(1);
      events[i].state()->complete(i == 1 ? std::make_exception_ptr(std::logic_error("second"))
                                         : nullptr);
    }
  });
  EXPECT_THROW(wait_all(events), std::logic_error);
  EXPECT_EQ(completed.load(), 3);
  completer.join();
}

}  // namespace
}  // namespace strata::device
