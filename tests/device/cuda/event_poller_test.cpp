// The poller that completes native events (no GPU: fake pollables).

#include "event_poller.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace strata::device::cuda {
namespace {

// Finishes once `ready` is set; counts how often it was asked.
struct Flag final : Pollable {
  std::atomic<bool> ready{false};
  std::atomic<int> asked{0};
  std::atomic<bool> finished{false};
  bool check() override {
    ++asked;
    if (!ready) return false;
    finished = true;
    return true;
  }
};

bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

TEST(EventPoller, AsksUntilFinishedThenDrops) {
  EventPoller poller;
  auto flag = std::make_shared<Flag>();
  poller.watch(flag);
  ASSERT_TRUE(eventually([&] { return flag->asked > 2; }));
  EXPECT_FALSE(flag->finished);
  flag->ready = true;
  ASSERT_TRUE(eventually([&] { return flag->finished.load(); }));
  ASSERT_TRUE(eventually([&] { return poller.watched() == 0; }));
}

TEST(EventPoller, ACheckMayWatchMore) {
  EventPoller poller;
  auto second = std::make_shared<Flag>();
  second->ready = true;
  struct Chain final : Pollable {
    EventPoller* poller;
    std::shared_ptr<Flag> next;
    bool check() override {
      poller->watch(next);  // as an event callback enqueuing more work would
      return true;
    }
  };
  auto first = std::make_shared<Chain>();
  first->poller = &poller;
  first->next = second;
  poller.watch(first);
  ASSERT_TRUE(eventually([&] { return second->finished.load(); }));
}

TEST(EventPoller, PausesAFractionOfTheWaitBetweenFiveAndTwoHundredMicroseconds) {
  using std::chrono::microseconds;
  EXPECT_EQ(poll_pause(microseconds{0}), microseconds{5});
  EXPECT_EQ(poll_pause(microseconds{100}), microseconds{5});
  // A 1 ms kernel is seen finished within about 16 µs (1.6 %) of its end.
  EXPECT_EQ(poll_pause(microseconds{1000}), microseconds{15});
  EXPECT_EQ(poll_pause(microseconds{6400}), microseconds{100});
  EXPECT_EQ(poll_pause(std::chrono::seconds{1}), microseconds{200});
}

TEST(EventPoller, StopsWithUnfinishedItems) {
  auto flag = std::make_shared<Flag>();
  {
    EventPoller poller;
    poller.watch(flag);
    ASSERT_TRUE(eventually([&] { return flag->asked > 0; }));
  }
  EXPECT_FALSE(flag->finished);
  EXPECT_EQ(flag.use_count(), 1) << "the poller let go of it";
}

}  // namespace
}  // namespace strata::device::cuda
