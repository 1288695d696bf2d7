// InjectionRing: FIFO order through laps and overflow, and under concurrent pushers and takers
// every item is taken exactly once (checked against a count per item).

#include "injection_ring.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace strata::runtime::detail {
namespace {

TEST(InjectionRing, KeepsOrderThroughLapsAndOverflow) {
  InjectionRing<int> ring(4);
  std::vector<int> items(10);
  for (int& item : items)
    ring.push(&item);  // four in the ring, six in the overflow
  for (int& item : items)
    EXPECT_EQ(ring.take(), &item);
  EXPECT_EQ(ring.take(), nullptr);
  for (int lap = 0; lap < 25; ++lap) {  // the ring again, lap after lap
    ring.push(&items[0]);
    ring.push(&items[1]);
    EXPECT_EQ(ring.take(), &items[0]);
    EXPECT_EQ(ring.take(), &items[1]);
  }
  EXPECT_EQ(ring.take(), nullptr);
}

TEST(InjectionRing, ConcurrentPushersAndTakersLoseAndRepeatNothing) {
  constexpr int pushers = 3;
  constexpr int takers = 3;
  constexpr int per_pusher = 20'000;
  InjectionRing<int> ring(64);  // small: pushes wrap many laps and overflow
  std::vector<int> items(pushers * per_pusher);
  std::vector<std::atomic<int>> taken(items.size());
  std::atomic<int> left{static_cast<int>(items.size())};
  std::vector<std::thread> threads;
  for (int p = 0; p < pushers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < per_pusher; ++i)
        ring.push(&items[static_cast<std::size_t>(p * per_pusher + i)]);
    });
  }
  for (int t = 0; t < takers; ++t) {
    threads.emplace_back([&] {
      while (left.load() > 0) {
        if (int* item = ring.take()) {
          taken[static_cast<std::size_t>(item - items.data())].fetch_add(1);
          left.fetch_sub(1);
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  for (const auto& count : taken)
    ASSERT_EQ(count.load(), 1);
  EXPECT_EQ(ring.take(), nullptr);
}

}  // namespace
}  // namespace strata::runtime::detail
