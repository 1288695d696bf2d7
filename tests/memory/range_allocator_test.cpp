#include "strata/memory/range_allocator.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace strata::memory {
namespace {

TEST(RangeAllocator, AllocatesAlignedRangesUntilFull) {
  RangeAllocator pool(1024, 256);
  EXPECT_EQ(pool.allocate(1), 0u);
  EXPECT_EQ(pool.allocate(256), 256u);
  EXPECT_EQ(pool.allocate(300), 512u);  // two alignment units
  EXPECT_EQ(pool.used(), 1024u);
  EXPECT_FALSE(pool.allocate(1).has_value());
}

TEST(RangeAllocator, FreedNeighboursMergeIntoOneRange) {
  RangeAllocator pool(1024, 256);
  auto a = *pool.allocate(256), b = *pool.allocate(256), c = *pool.allocate(256);
  pool.free(a, 256);
  pool.free(c, 256);
  EXPECT_EQ(pool.largest_free(), 512u);  // c merged with the tail
  pool.free(b, 256);
  EXPECT_EQ(pool.largest_free(), 1024u);
  EXPECT_EQ(pool.used(), 0u);
}

TEST(RangeAllocator, TakesTheSmallestFreeRangeThatFits) {
  RangeAllocator pool(4096, 256);
  auto a = *pool.allocate(1024), b = *pool.allocate(256), c = *pool.allocate(512);
  ASSERT_EQ(pool.allocate(256), 1792u);  // keeps c's range from merging with the tail
  pool.free(a, 1024);
  pool.free(c, 512);
  EXPECT_EQ(pool.allocate(512), c);  // the 512-byte hole, not the first (1024) one
  EXPECT_EQ(pool.allocate(768), a);  // the 1024-byte hole before the 2048-byte tail
  EXPECT_EQ(pool.allocate(2048), 2048u);
  EXPECT_EQ(pool.largest_free(), 256u);  // a's 256-byte rest
  pool.free(b, 256);
  EXPECT_EQ(pool.largest_free(), 512u);  // b merged with a's rest
}

TEST(RangeAllocator, RandomAllocationsNeverOverlapAndAllReturn) {
  RangeAllocator pool(1 << 20, 64);
  std::map<std::uint64_t, std::uint64_t> live;  // offset -> rounded size
  std::mt19937 engine(7);
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || engine() % 2 == 0) {
      const std::uint64_t bytes = 1 + engine() % 20000;
      if (auto offset = pool.allocate(bytes)) {
        const std::uint64_t size = pool.rounded(bytes);
        auto next = live.lower_bound(*offset);
        ASSERT_TRUE(next == live.end() || *offset + size <= next->first);
        if (next != live.begin()) {
          ASSERT_LE(std::prev(next)->first + std::prev(next)->second, *offset);
        }
        live.emplace(*offset, size);
      } else {
        ASSERT_LT(pool.largest_free(), pool.rounded(bytes));  // refused only when nothing fits
      }
    } else {
      auto victim = live.begin();
      std::advance(victim, engine() % live.size());
      pool.free(victim->first, victim->second);
      live.erase(victim);
    }
  }
  for (const auto& [offset, size] : live)
    pool.free(offset, size);
  EXPECT_EQ(pool.used(), 0u);
  EXPECT_EQ(pool.largest_free(), 1u << 20);
}

}  // namespace
}  // namespace strata::memory
