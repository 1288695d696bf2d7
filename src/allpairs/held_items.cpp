#include "strata/allpairs/held_items.hpp"

#include <algorithm>
#include <cstring>

#include "strata/base/error.hpp"

namespace strata::allpairs {

HeldItems::HeldItems(const std::vector<ItemIndex>& sorted_items) {
  for (const ItemIndex item : sorted_items) {
    if (!ranges_.empty() && ranges_.back().end == item) {
      ++ranges_.back().end;
    } else {
      ranges_.push_back({item, item + 1});
    }
  }
}

std::string HeldItems::encode() const {
  std::string bytes(ranges_.size() * sizeof(Range), '\0');
  if (!bytes.empty()) std::memcpy(bytes.data(), ranges_.data(), bytes.size());
  return bytes;
}

HeldItems HeldItems::decode(const std::string& bytes) {
  constexpr std::size_t range_bytes = sizeof(Range);
  if (bytes.size() % range_bytes != 0)
    throw Error("held items: " + std::to_string(bytes.size()) + " bytes are not whole ranges");
  HeldItems held;
  held.ranges_.resize(bytes.size() / range_bytes);
  if (!bytes.empty()) std::memcpy(held.ranges_.data(), bytes.data(), bytes.size());
  return held;
}

ItemIndex HeldItems::count(ItemIndex begin, ItemIndex end) const {
  // The first range that ends after begin; then every range that starts before end.
  auto range = std::upper_bound(ranges_.begin(), ranges_.end(), begin,
                                [](ItemIndex at, const Range& r) { return at < r.end; });
  ItemIndex held = 0;
  for (; range != ranges_.end() && range->begin < end; ++range)
    held += std::min(end, range->end) - std::max(begin, range->begin);
  return held;
}

double HeldItems::share_of(const PairBlock& block) const {
  const ItemIndex overlap_begin = std::max(block.row_begin, block.column_begin);
  const ItemIndex overlap_end = std::min(block.row_end, block.column_end);
  const ItemIndex overlap = overlap_end > overlap_begin ? overlap_end - overlap_begin : 0;
  const ItemIndex items =
      (block.row_end - block.row_begin) + (block.column_end - block.column_begin) - overlap;
  if (items == 0) return 0.0;
  const ItemIndex held = count(block.row_begin, block.row_end) +
                         count(block.column_begin, block.column_end) -
                         (overlap > 0 ? count(overlap_begin, overlap_end) : 0);
  return static_cast<double>(held) / static_cast<double>(items);
}

}  // namespace strata::allpairs
