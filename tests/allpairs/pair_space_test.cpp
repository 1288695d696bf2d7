#include "strata/allpairs/pair_space.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace strata::allpairs {
namespace {

std::set<std::pair<ItemIndex, ItemIndex>> brute_force(const PairSpace& space) {
  std::set<std::pair<ItemIndex, ItemIndex>> out;
  for (ItemIndex a = 0; a < space.items(); ++a)
    for (ItemIndex b = 0; b < space.items(); ++b)
      if (space.contains(a, b)) out.emplace(a, b);
  return out;
}

// Splits down to single pairs, collecting them: every pair exactly once.
void split_all(const PairSpace& space, const PairBlock& block,
               std::multiset<std::pair<ItemIndex, ItemIndex>>& out) {
  if (block.row_end - block.row_begin <= 1 && block.column_end - block.column_begin <= 1) {
    for (const auto& pair : block.list(space))
      out.insert(pair);
    return;
  }
  std::uint64_t sum = 0;
  for (const PairBlock& q : block.quadrants(space)) {
    sum += q.pairs(space);
    split_all(space, q, out);
  }
  EXPECT_EQ(sum, block.pairs(space));
}

TEST(PairSpace, AllPairsCountsTheUpperTriangle) {
  EXPECT_EQ(PairSpace::all_pairs(5).pairs(), 10u);
  EXPECT_EQ(PairSpace::all_pairs(1).pairs(), 0u);
  EXPECT_EQ(PairSpace::all_pairs(4980).pairs(), 12397710u);  // the paper's forensics set
  EXPECT_FALSE(PairSpace::all_pairs(5).contains(2, 2));
  EXPECT_FALSE(PairSpace::all_pairs(5).contains(3, 2));
}

TEST(PairSpace, CrossPairsEveryItemOfAWithEveryItemOfB) {
  const PairSpace space = PairSpace::cross(3, 4);
  EXPECT_EQ(space.pairs(), 12u);
  EXPECT_TRUE(space.contains(0, 3));
  EXPECT_FALSE(space.contains(0, 1));
  EXPECT_EQ(brute_force(space).size(), 12u);
}

TEST(PairSpace, QuadtreeSplitCoversEveryPairOnceForRandomSpaces) {
  std::mt19937 random(42);
  for (int round = 0; round < 40; ++round) {
    const auto a = static_cast<ItemIndex>(random() % 23 + 1);
    const auto b = static_cast<ItemIndex>(random() % 17 + 1);
    const PairSpace space = round % 2 ? PairSpace::all_pairs(a) : PairSpace::cross(a, b);
    std::multiset<std::pair<ItemIndex, ItemIndex>> seen;
    split_all(space, PairBlock::whole(space), seen);
    const auto expected = brute_force(space);
    EXPECT_EQ(seen.size(), expected.size());
    EXPECT_EQ(std::set(seen.begin(), seen.end()), expected);
    EXPECT_EQ(space.pairs(), expected.size());
  }
}

TEST(PairBlock, EncodesAndDecodes) {
  const PairBlock block{3, 9, 12, 40};
  EXPECT_EQ(PairBlock::decode(block.encode()), block);
  EXPECT_THROW(PairBlock::decode("short"), Error);
}

}  // namespace
}  // namespace strata::allpairs
