// Recycler: objects given back are handed out again, never twice at once, and none is lost or
// leaked when threads give on one side and take on the other (checked against live counts).

#include "recycler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace strata::runtime::detail {
namespace {

// A recycled object that counts the live instances and flags whether it is handed out.
template <int Tag>
struct Tracked {
  static inline std::atomic<long> live{0};
  std::atomic<bool> in_use{false};
  Tracked() { live.fetch_add(1); }
  ~Tracked() { live.fetch_sub(1); }
};

TEST(Recycler, HandsBackWhatWasGivenOnTheSameThread) {
  using Object = Tracked<0>;
  using Pool = Recycler<Object, 4, 2>;
  std::thread([] {
    EXPECT_EQ(Pool::take(), nullptr);
    std::vector<Object*> given;
    for (int i = 0; i < 5; ++i)
      given.push_back(new Object);
    for (Object* object : given)
      Pool::give(object);
    std::set<Object*> taken;
    for (int i = 0; i < 5; ++i) {
      Object* object = Pool::take();
      ASSERT_NE(object, nullptr);
      EXPECT_TRUE(taken.insert(object).second) << "handed out twice";
    }
    EXPECT_EQ(taken, std::set<Object*>(given.begin(), given.end()));
    EXPECT_EQ(Pool::take(), nullptr);
    for (Object* object : taken)
      delete object;
  }).join();
  EXPECT_EQ(Object::live.load(), 0);
}

TEST(Recycler, ThreadsThatEndPutTheirCacheOnTheShelfUpToItsLimit) {
  using Object = Tracked<1>;
  using Pool = Recycler<Object, 4, 2>;  // batches of 4, at most 2 batches shelved
  std::thread([] {
    for (int i = 0; i < 7; ++i)
      Pool::give(new Object);  // below 2 x 4: all cached, shelved as one batch at thread exit
  }).join();
  EXPECT_EQ(Pool::shelved(), 7u);
  std::thread([] {
    for (int i = 0; i < 20; ++i)
      Pool::give(new Object);  // at the 8th a batch of 4 is shelved; the shelf is then full
  }).join();
  EXPECT_EQ(Pool::shelved(), 11u);  // later batches and the cache at exit were deleted
  EXPECT_EQ(Object::live.load(), 11);
  std::thread([] {
    while (Object* object = Pool::take())
      delete object;
  }).join();
  EXPECT_EQ(Pool::shelved(), 0u);
  EXPECT_EQ(Object::live.load(), 0);
}

// Producers take (or create) objects and pass them through a queue to consumers, which give them
// back; objects cross threads both ways, as task records do between submitter and workers.
TEST(Recycler, StressAcrossThreadsAgainstLiveCount) {
  using Object = Tracked<2>;
  using Pool = Recycler<Object, 8, 4>;
  constexpr int producers = 2, consumers = 2, per_producer = 200'000;
  std::mutex lock;
  std::condition_variable changed;
  std::deque<Object*> queue;
  int producers_left = producers;
  std::atomic<long> created{0}, reused{0}, double_use{0};

  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&] {
      for (int i = 0; i < per_producer; ++i) {
        Object* object = Pool::take();
        if (object == nullptr) {
          object = new Object;
          created.fetch_add(1);
        } else {
          reused.fetch_add(1);
        }
        if (object->in_use.exchange(true)) double_use.fetch_add(1);
        {
          std::lock_guard guard(lock);
          queue.push_back(object);
        }
        changed.notify_one();
      }
      std::lock_guard guard(lock);
      --producers_left;
      changed.notify_all();
    });
  }
  for (int c = 0; c < consumers; ++c) {
    threads.emplace_back([&] {
      while (true) {
        Object* object = nullptr;
        {
          std::unique_lock guard(lock);
          changed.wait(guard, [&] { return !queue.empty() || producers_left == 0; });
          if (queue.empty()) return;
          object = queue.front();
          queue.pop_front();
        }
        if (!object->in_use.exchange(false)) double_use.fetch_add(1);
        Pool::give(object);
      }
    });
  }
  for (auto& thread : threads)
    thread.join();

  EXPECT_EQ(double_use.load(), 0);
  EXPECT_EQ(created.load() + reused.load(), long{producers} * per_producer);
  EXPECT_GT(reused.load(), 0);
  // Every thread ended: what is alive is exactly what the shelf holds.
  EXPECT_EQ(static_cast<std::size_t>(Object::live.load()), Pool::shelved());
  std::thread([] {
    while (Object* object = Pool::take())
      delete object;
  }).join();
  EXPECT_EQ(Object::live.load(), 0);
}

}  // namespace
}  // namespace strata::runtime::detail
