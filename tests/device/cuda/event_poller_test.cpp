// The poller that completes native events (no GPU: fake pollables).

#include "event_poller.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "pending_events.hpp"

namespace strata::device::cuda {
namespace {

// Finishes once `ready` is set; counts how often it was asked.
struct Flag final : Pollable {
  std::atomic<bool> ready{false};
  std::atomic<int> asked{0};
  std::atomic<bool> finished{false};
  PollOrder place;
  bool check() override {
    ++asked;
    if (!ready) return false;
    finished = true;
    return true;
  }
  PollOrder order() override { return place; }
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

TEST(EventPoller, AsksOnlyTheOldestUnfinishedItemOfALane) {
  EventPoller poller;
  const int lane = 0;
  std::vector<std::shared_ptr<Flag>> flags(1000);
  for (std::size_t i = 0; i < flags.size(); ++i) {
    flags[i] = std::make_shared<Flag>();
    flags[i]->place = {&lane, 10 + i};
  }
  // Watched newest first (callbacks are armed in any order); asked oldest first.
  for (std::size_t i = flags.size(); i-- > 0;)
    poller.watch(flags[i]);
  // Watched after all the others: once it was asked, the poller holds every item.
  auto last = std::make_shared<Flag>();
  poller.watch(last);
  ASSERT_TRUE(eventually([&] { return last->asked > 0; }));
  std::vector<int> asked_before(flags.size());
  for (std::size_t i = 0; i < flags.size(); ++i)
    asked_before[i] = flags[i]->asked;
  const int first_asked = flags[0]->asked;
  ASSERT_TRUE(eventually([&] { return flags[0]->asked > first_asked + 3; }));
  for (std::size_t i = 1; i < flags.size(); ++i)
    ASSERT_EQ(flags[i]->asked, asked_before[i]) << "item " << i << " was asked behind the first";
  // The second finishing first changes nothing: it is asked only after the first finished.
  flags[1]->ready = true;
  ASSERT_TRUE(eventually([&] { return flags[0]->asked > first_asked + 6; }));
  EXPECT_FALSE(flags[1]->finished);
  EXPECT_EQ(flags[1]->asked, asked_before[1]);
  for (auto& flag : flags)
    flag->ready = true;
  last->ready = true;
  ASSERT_TRUE(eventually([&] { return poller.watched() == 0; }));
  for (std::size_t i = 0; i < flags.size(); ++i)
    EXPECT_TRUE(flags[i]->finished) << i;
}

TEST(EventPoller, LanesAndItemsWithoutALaneAreAskedApart) {
  EventPoller poller;
  const int first_lane = 0, second_lane = 0;
  auto stuck = std::make_shared<Flag>();
  stuck->place = {&first_lane, 1};
  auto behind = std::make_shared<Flag>();
  behind->place = {&first_lane, 2};
  behind->ready = true;
  auto other = std::make_shared<Flag>();
  other->place = {&second_lane, 1};
  other->ready = true;
  auto alone = std::make_shared<Flag>();
  alone->ready = true;
  for (const auto& flag : {stuck, behind, other, alone})
    poller.watch(flag);
  // An item is finished within its round; the round then counts it out of watched().
  ASSERT_TRUE(eventually([&] { return other->finished && alone->finished; }));
  ASSERT_TRUE(eventually([&] { return poller.watched() == 2u; }));
  EXPECT_FALSE(behind->finished);
  stuck->ready = true;
  ASSERT_TRUE(eventually([&] { return behind->finished.load(); }));
  EXPECT_TRUE(eventually([&] { return poller.watched() == 0u; }));
}

// Random lanes whose items become ready in order, watched in random order from two threads:
// every item finishes once, and once all are held none is asked before every earlier item of
// its lane finished.
TEST(EventPoller, RandomLanesFinishInOrderAndAreAskedInOrder) {
  constexpr int lanes = 6, per_lane = 400;
  std::atomic<bool> all_held{false};
  struct Item final : Pollable {
    const std::atomic<bool>* all_held = nullptr;
    const std::atomic<int>* ready_up_to = nullptr;  // items below it in the lane are ready
    std::atomic<int>* finished_up_to = nullptr;
    const int* lane_key = nullptr;
    int lane = 0, position = 0;
    std::atomic<int> finished{0};
    std::atomic<bool> out_of_order{false};
    bool check() override {
      if (*all_held && finished_up_to->load() != position) out_of_order = true;
      if (position >= ready_up_to->load()) return false;
      ++finished;
      finished_up_to->store(position + 1);
      return true;
    }
    PollOrder order() override { return {lane_key, static_cast<std::uint64_t>(position) * 3 + 7}; }
  };
  std::vector<std::atomic<int>> ready(lanes), done(lanes);
  std::vector<int> keys(lanes);
  std::vector<std::shared_ptr<Item>> items;
  for (int l = 0; l < lanes; ++l) {
    for (int p = 0; p < per_lane; ++p) {
      auto item = std::make_shared<Item>();
      item->all_held = &all_held;
      item->ready_up_to = &ready[l];
      item->finished_up_to = &done[l];
      item->lane_key = &keys[l];
      item->lane = l;
      item->position = p;
      items.push_back(item);
    }
  }
  std::mt19937 random(17);
  std::shuffle(items.begin(), items.end(), random);
  EventPoller poller;
  const std::size_t half = items.size() / 2;
  std::thread other([&] {
    for (std::size_t i = half; i < items.size(); ++i)
      poller.watch(items[i]);
  });
  for (std::size_t i = 0; i < half; ++i)
    poller.watch(items[i]);
  other.join();
  // Watched after all the others: once it was asked, the poller holds every item.
  auto last = std::make_shared<Flag>();
  poller.watch(last);
  ASSERT_TRUE(eventually([&] { return last->asked > 0; }));
  all_held = true;
  std::mt19937 pace(5);
  for (int step = 0; step < 4000; ++step) {
    auto& lane = ready[pace() % lanes];
    lane.store(std::min(per_lane, lane.load() + static_cast<int>(pace() % 3)));
    if (step % 64 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  for (auto& lane : ready)
    lane.store(per_lane);
  last->ready = true;
  ASSERT_TRUE(eventually([&] { return poller.watched() == 0; }));
  for (const auto& item : items) {
    EXPECT_EQ(item->finished, 1) << "lane " << item->lane << " item " << item->position;
    EXPECT_FALSE(item->out_of_order) << "lane " << item->lane << " item " << item->position;
  }
}

// A queue of items on one stream, all watched at once: each counts as running only from when the
// one before it was seen finished, so the pause follows the running item, not the queue's age.
TEST(PendingEvents, ALanesOldestItemRunsFromWhenTheOneBeforeItWasSeenFinished) {
  using Clock = PendingEvents::Clock;
  using std::chrono::milliseconds;
  const int lane = 0;
  const auto watched_at = Clock::now();
  PendingEvents pending;
  EXPECT_TRUE(pending.empty());
  std::vector<std::shared_ptr<Flag>> queue(3);
  for (std::size_t i = 0; i < queue.size(); ++i) {
    queue[i] = std::make_shared<Flag>();
    queue[i]->place = {&lane, i};
    pending.add({queue[i], watched_at, queue[i]->place});
  }
  auto alone = std::make_shared<Flag>();
  pending.add({alone, watched_at - milliseconds{5}, {}});

  auto round = pending.round(watched_at + milliseconds{1});
  EXPECT_EQ(round.finished, 0u);
  EXPECT_EQ(round.youngest_start, watched_at);
  EXPECT_EQ(queue[1]->asked, 0) << "asked behind the lane's oldest";

  queue[0]->ready = true;
  round = pending.round(watched_at + milliseconds{10});
  EXPECT_EQ(round.finished, 1u);
  EXPECT_EQ(round.youngest_start, watched_at + milliseconds{10}) << "the second started then";
  EXPECT_EQ(queue[1]->asked, 1);

  // The later of watched and the one before seen finished: an item watched after that.
  auto late = std::make_shared<Flag>();
  late->place = {&lane, 7};
  queue[1]->ready = true;
  queue[2]->ready = true;
  pending.add({late, watched_at + milliseconds{30}, late->place});
  round = pending.round(watched_at + milliseconds{20});
  EXPECT_EQ(round.finished, 2u);
  EXPECT_EQ(round.youngest_start, watched_at + milliseconds{30});

  // Only the unordered item is left once the lane drained: it runs from when it was watched.
  late->ready = true;
  round = pending.round(watched_at + milliseconds{40});
  EXPECT_EQ(round.finished, 1u);
  EXPECT_EQ(round.youngest_start, watched_at - milliseconds{5});
  alone->ready = true;
  round = pending.round(watched_at + milliseconds{50});
  EXPECT_EQ(round.finished, 1u);
  EXPECT_EQ(round.youngest_start, Clock::time_point::min());
  EXPECT_TRUE(pending.empty());
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
