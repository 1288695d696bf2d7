#include "strata/allpairs/pair_space.hpp"

#include <algorithm>
#include <cstring>

namespace strata::allpairs {

PairSpace PairSpace::all_pairs(ItemIndex items) {
  return PairSpace{0, items, 0, items, true};
}

PairSpace PairSpace::cross(ItemIndex a_items, ItemIndex b_items) {
  return PairSpace{0, a_items, a_items, a_items + b_items, false};
}

bool PairSpace::contains(ItemIndex left, ItemIndex right) const {
  return left >= rows_begin && left < rows_end && right >= columns_begin && right < columns_end &&
         (!triangle || left < right);
}

std::uint64_t PairSpace::pairs() const {
  return PairBlock::whole(*this).pairs(*this);
}

PairBlock PairBlock::whole(const PairSpace& space) {
  return PairBlock{space.rows_begin, space.rows_end, space.columns_begin, space.columns_end};
}

std::uint64_t PairBlock::pairs(const PairSpace& space) const {
  const ItemIndex r0 = std::max(row_begin, space.rows_begin);
  const ItemIndex r1 = std::min(row_end, space.rows_end);
  const ItemIndex c0 = std::max(column_begin, space.columns_begin);
  const ItemIndex c1 = std::min(column_end, space.columns_end);
  if (r0 >= r1 || c0 >= c1) return 0;
  if (!space.triangle) return std::uint64_t{r1 - r0} * (c1 - c0);
  // Row r holds the columns max(c0, r + 1) .. c1 - 1.
  std::uint64_t total = 0;
  for (ItemIndex r = r0; r < r1; ++r) {
    const ItemIndex first = std::max(c0, static_cast<ItemIndex>(r + 1));
    if (first < c1) total += c1 - first;
  }
  return total;
}

std::vector<PairBlock> PairBlock::quadrants(const PairSpace& space) const {
  const ItemIndex row_mid = row_begin + (row_end - row_begin + 1) / 2;
  const ItemIndex column_mid = column_begin + (column_end - column_begin + 1) / 2;
  const std::array<PairBlock, 4> candidates = {
      PairBlock{row_begin, row_mid, column_begin, column_mid},
      PairBlock{row_begin, row_mid, column_mid, column_end},
      PairBlock{row_mid, row_end, column_begin, column_mid},
      PairBlock{row_mid, row_end, column_mid, column_end}};
  std::vector<PairBlock> out;
  for (const PairBlock& q : candidates) {
    if (q.row_begin < q.row_end && q.column_begin < q.column_end && q.pairs(space) > 0)
      out.push_back(q);
  }
  return out;
}

std::vector<std::pair<ItemIndex, ItemIndex>> PairBlock::list(const PairSpace& space) const {
  std::vector<std::pair<ItemIndex, ItemIndex>> out;
  for (ItemIndex r = row_begin; r < row_end; ++r) {
    for (ItemIndex c = column_begin; c < column_end; ++c) {
      if (space.contains(r, c)) out.emplace_back(r, c);
    }
  }
  return out;
}

std::string PairBlock::encode() const {
  std::string bytes(sizeof(PairBlock), '\0');
  std::memcpy(bytes.data(), this, sizeof(PairBlock));
  return bytes;
}

PairBlock PairBlock::decode(const std::string& bytes) {
  if (bytes.size() != sizeof(PairBlock))
    throw Error("a stolen all-pairs block of " + std::to_string(bytes.size()) +
                " bytes (expected " + std::to_string(sizeof(PairBlock)) + ")");
  PairBlock block;
  std::memcpy(&block, bytes.data(), sizeof(PairBlock));
  return block;
}

}  // namespace strata::allpairs
