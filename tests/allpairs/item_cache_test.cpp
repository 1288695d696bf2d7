// One rank's item cache: entries referenced by jobs, loaded, then discarded least recently used
// first once over the limit.

#include "strata/allpairs/item_cache.hpp"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace strata::allpairs {
namespace {

// A cache of at most `slots` items whose loads finish at once (the test records them loaded) and
// whose discarded chunks are listed.
struct CacheUnderTest {
  explicit CacheUnderTest(std::uint64_t slots)
      : cache(
            runtime, CacheLimits{slots, 0},
            [this](ItemIndex, unsigned, runtime::DataHandle) {
              return runtime.submit(runtime::TaskSpec("load"), [](runtime::TaskContext&) {});
            },
            [this](ItemIndex item, runtime::DataHandle, std::optional<memory::ChunkId> chunk) {
              std::lock_guard guard(lock);
              discarded[item] = chunk;
            }) {}
  ~CacheUnderTest() { runtime.wait_all(); }

  std::map<ItemIndex, std::optional<memory::ChunkId>> discarded_now() {
    std::lock_guard guard(lock);
    return discarded;
  }

  runtime::Runtime runtime{Config{}};
  std::mutex lock;
  std::map<ItemIndex, std::optional<memory::ChunkId>> discarded;
  ItemCache cache;
};

TEST(ItemCache, AnEntryWhoseJobsEndedBeforeItsLoadWasRecordedStaysUntilThen) {
  CacheUnderTest under(1);
  under.cache.acquire(0, 0).ready.wait();
  under.cache.release(0);  // its only job ended, its load not yet recorded
  under.cache.acquire(1, 0).ready.wait();
  under.cache.release(1);
  EXPECT_TRUE(under.discarded_now().empty()) << "an entry went before its chunk was known";
  under.cache.loaded(1, memory::ChunkId{11}, 100);  // over the limit: item 1 is the only one
  EXPECT_EQ(under.discarded_now(),
            (std::map<ItemIndex, std::optional<memory::ChunkId>>{{1, memory::ChunkId{11}}}));
  under.cache.loaded(0, memory::ChunkId{10}, 100);  // now one entry, within the limit
  EXPECT_EQ(under.cache.holds(0), memory::ChunkId{10});
  under.cache.clear();
  EXPECT_EQ(under.discarded_now().at(0), memory::ChunkId{10});
}

TEST(ItemCache, LeastRecentlyUsedLoadedEntriesGoFirstAndAHitReferencesItsEntryAgain) {
  CacheUnderTest under(2);
  for (ItemIndex item = 0; item < 3; ++item) {
    const ItemUse use = under.cache.acquire(item, 0);
    EXPECT_FALSE(use.hit);
    use.ready.wait();
    under.cache.loaded(item, memory::ChunkId{item}, 10);
    under.cache.release(item);
  }
  EXPECT_EQ(under.discarded_now().size(), 1u);
  EXPECT_TRUE(under.discarded_now().contains(0));
  EXPECT_TRUE(under.cache.acquire(1, 0).hit);  // referenced: item 2 goes next, not item 1
  under.cache.acquire(3, 0).ready.wait();
  under.cache.loaded(3, memory::ChunkId{3}, 10);
  EXPECT_TRUE(under.discarded_now().contains(2));
  EXPECT_FALSE(under.discarded_now().contains(1));
  EXPECT_EQ(under.cache.stats().hits, 1u);
  under.cache.release(1);
  under.cache.release(3);
}

}  // namespace
}  // namespace strata::allpairs
