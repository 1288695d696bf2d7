#pragma once
// PairSpace and PairBlock: which pairs an all-pairs run computes — every pair i < j of one set,
// or every pair of two sets A x B — and rectangular blocks of the pair matrix that the engine
// splits into quadrants, divide-and-conquer (the rocket paper's §4.2, Fig. 5).

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/allpairs/application.hpp"

namespace strata::allpairs {

// The pairs of a run: rows x columns of the pair matrix, with only the pairs above the diagonal
// (left < right) when `triangle`.
struct PairSpace {
  ItemIndex rows_begin = 0, rows_end = 0;
  ItemIndex columns_begin = 0, columns_end = 0;
  bool triangle = true;

  // Every pair i < j of items 0 .. n - 1.
  static PairSpace all_pairs(ItemIndex items);
  // Every pair (a, b) with a in 0 .. a_items - 1 and b in a_items .. a_items + b_items - 1.
  static PairSpace cross(ItemIndex a_items, ItemIndex b_items);

  ItemIndex items() const { return std::max(rows_end, columns_end); }
  bool contains(ItemIndex left, ItemIndex right) const;
  std::uint64_t pairs() const;
};

// A rectangle of the pair matrix: rows [row_begin, row_end) x columns [column_begin, column_end).
struct PairBlock {
  ItemIndex row_begin = 0, row_end = 0;
  ItemIndex column_begin = 0, column_end = 0;

  static PairBlock whole(const PairSpace& space);
  // Pairs of `space` inside the block.
  std::uint64_t pairs(const PairSpace& space) const;
  // The block's quadrants that hold pairs of `space` (upper-left first).
  std::vector<PairBlock> quadrants(const PairSpace& space) const;
  // The block's pairs of `space`, row by row.
  std::vector<std::pair<ItemIndex, ItemIndex>> list(const PairSpace& space) const;

  std::string encode() const;
  static PairBlock decode(const std::string& bytes);
  friend bool operator==(const PairBlock&, const PairBlock&) = default;
};

}  // namespace strata::allpairs
