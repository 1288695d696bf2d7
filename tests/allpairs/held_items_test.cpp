// HeldItems: the ranges a thief sends, and the share of a block they cover.

#include "strata/allpairs/held_items.hpp"

#include <gtest/gtest.h>

#include "strata/base/error.hpp"

namespace strata::allpairs {
namespace {

TEST(HeldItems, CountsItemsInARangeAcrossItsRanges) {
  const HeldItems held({1, 2, 3, 7, 8, 20});
  EXPECT_EQ(held.count(0, 30), 6u);
  EXPECT_EQ(held.count(2, 8), 3u);  // 2, 3, 7
  EXPECT_EQ(held.count(4, 7), 0u);
  EXPECT_EQ(held.count(20, 21), 1u);
  EXPECT_EQ(HeldItems().count(0, 100), 0u);
}

TEST(HeldItems, ShareOfABlockCountsEachItemOnce) {
  const HeldItems held({0, 1, 2, 3});
  // Rows 0..3 x columns 4..7: 8 items, 4 held.
  EXPECT_DOUBLE_EQ(held.share_of(PairBlock{0, 4, 4, 8}), 0.5);
  // A block on the diagonal: rows and columns 0..3 are the same 4 items, all held.
  EXPECT_DOUBLE_EQ(held.share_of(PairBlock{0, 4, 0, 4}), 1.0);
  // Rows 2..5 x columns 2..9: items 2..9, of which 2 and 3 are held.
  EXPECT_DOUBLE_EQ(held.share_of(PairBlock{2, 6, 2, 10}), 2.0 / 8.0);
  EXPECT_DOUBLE_EQ(held.share_of(PairBlock{8, 12, 12, 16}), 0.0);
}

TEST(HeldItems, EncodesAndDecodes) {
  const HeldItems held({5, 6, 9});
  const HeldItems back = HeldItems::decode(held.encode());
  EXPECT_EQ(back.count(0, 100), 3u);
  EXPECT_EQ(back.count(6, 9), 1u);
  EXPECT_THROW(HeldItems::decode("abc"), Error);
}

}  // namespace
}  // namespace strata::allpairs
