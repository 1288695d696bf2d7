// The distributed cache's protocol (rocket §4.1.3) on 3 or more ranks: the point of contact
// forwards a request along the ranks that asked most recently, at most h of them.

#include "strata/allpairs/distributed_cache.hpp"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <set>

#include "engine_test_support.hpp"
#include "strata/cluster/message_kinds.hpp"

namespace strata::allpairs::testing {
namespace {

// Whether this rank holds items, as the cache's Holds sees it.
class Held {
 public:
  bool contains(ItemIndex item) {
    std::lock_guard guard(lock_);
    return items_.contains(item);
  }
  void insert(ItemIndex item) {
    std::lock_guard guard(lock_);
    items_.insert(item);
  }

 private:
  std::mutex lock_;
  std::set<ItemIndex> items_;
};

std::optional<int> lookup(DistributedCache& cache, ItemIndex item) {
  std::promise<std::optional<int>> answer;
  cache.lookup(item, [&](std::optional<int> holder) { answer.set_value(holder); });
  return answer.get_future().get();
}

// Rank 1 asks first (miss) and then holds the item; rank 2 asks (hit at rank 1) but does not
// keep it; rank 0 asks last: the contact's candidates are [2, 1], so with h = 1 only rank 2 is
// asked (a miss), with h = 2 rank 1 is reached at the second hop.
std::optional<int> third_request(unsigned hops, cluster::MessageKind kinds) {
  Held held;
  DistributedCache cache(
      network(), hops, [&](ItemIndex item) { return held.contains(item); }, kinds);
  const auto item = static_cast<ItemIndex>(network().size());  // contact: rank 0
  barrier();
  if (network().rank() == 1) {
    EXPECT_EQ(lookup(cache, item), std::nullopt);
    held.insert(item);
  }
  barrier();
  if (network().rank() == 2) {
    EXPECT_EQ(lookup(cache, item), std::optional<int>(1));
  }
  barrier();
  std::optional<int> answer;
  if (network().rank() == 0) answer = lookup(cache, item);
  barrier();
  if (network().rank() == 2) {
    EXPECT_EQ(cache.stats().hits, 1u);
  }
  return answer;
}

TEST(DistributedCache, OneHopAsksOnlyTheLastRequester) {
  if (network().size() < 3) GTEST_SKIP() << "needs 3 or more ranks";
  const auto answer = third_request(1, cluster::kinds::user_kinds + 20);
  if (network().rank() == 0) {
    EXPECT_EQ(answer, std::nullopt);
  }
}

TEST(DistributedCache, TwoHopsReachTheRankBeforeIt) {
  if (network().size() < 3) GTEST_SKIP() << "needs 3 or more ranks";
  const auto answer = third_request(2, cluster::kinds::user_kinds + 30);
  if (network().rank() == 0) {
    EXPECT_EQ(answer, std::optional<int>(1));
  }
}

TEST(DistributedCache, AloneEveryLookupMisses) {
  if (network().size() > 1) GTEST_SKIP() << "one rank";
  Held held;
  held.insert(3);
  DistributedCache cache(
      network(), 1, [&](ItemIndex item) { return held.contains(item); },
      cluster::kinds::user_kinds + 40);
  EXPECT_EQ(lookup(cache, 3), std::nullopt) << "the asker itself is never a candidate";
  EXPECT_EQ(cache.stats().misses, 1u);
}

}  // namespace
}  // namespace strata::allpairs::testing
