#pragma once
// HeldItems: the items a rank's cache holds, as sorted ranges — what a thief sends with a steal
// request when stealing is cache-aware, and how much of a block of the pair matrix they cover.

#include <string>
#include <vector>

#include "strata/allpairs/pair_space.hpp"

namespace strata::allpairs {

class HeldItems {
 public:
  HeldItems() = default;
  // From items in increasing order.
  explicit HeldItems(const std::vector<ItemIndex>& sorted_items);

  std::string encode() const;
  // Throws Error on bytes that encode() did not write.
  static HeldItems decode(const std::string& bytes);

  // How many items of [begin, end) are held.
  ItemIndex count(ItemIndex begin, ItemIndex end) const;
  // The share of the block's items (its rows and columns, each item once) that are held, 0 to 1.
  double share_of(const PairBlock& block) const;

 private:
  struct Range {
    ItemIndex begin, end;
  };
  std::vector<Range> ranges_;  // sorted, disjoint
};

}  // namespace strata::allpairs
