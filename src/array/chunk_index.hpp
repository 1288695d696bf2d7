#pragma once
// The chunks of one array indexed by where they start along dimension 0, so that finding the
// chunks that hold or meet a region costs a binary search and the chunks near it, not a pass
// over all of them (a launch of many superblocks over many chunks would be quadratic).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "strata/array/array.hpp"

namespace strata::array::detail {

class ChunkIndex {
 public:
  explicit ChunkIndex(const Array& array) : chunks_(&array.chunks()) {
    order_.reserve(chunks_->size());
    for (std::size_t c = 0; c < chunks_->size(); ++c) {
      order_.push_back(c);
      const Region& region = (*chunks_)[c].placement.region;
      longest_ = std::max(longest_, region.hi[0] - region.lo[0]);
    }
    std::stable_sort(order_.begin(), order_.end(), [this](std::size_t a, std::size_t b) {
      return (*chunks_)[a].placement.region.lo[0] < (*chunks_)[b].placement.region.lo[0];
    });
  }

  // Calls f(chunk) for every chunk that shares elements with `region`, in the array's order of
  // chunks among those that start at the same place.
  template <class F>
  void for_each_meeting(const Region& region, F&& f) const {
    // A chunk that meets the region starts after region.lo[0] - longest and before region.hi[0].
    const std::uint64_t from = region.lo[0] > longest_ ? region.lo[0] - longest_ : 0;
    auto at = std::lower_bound(order_.begin(), order_.end(), from, [this](std::size_t c, auto lo) {
      return (*chunks_)[c].placement.region.lo[0] < lo;
    });
    for (; at != order_.end() && (*chunks_)[*at].placement.region.lo[0] < region.hi[0]; ++at) {
      const ArrayChunk& chunk = (*chunks_)[*at];
      if (chunk.placement.region.intersect(region)) f(chunk);
    }
  }

 private:
  const std::vector<ArrayChunk>* chunks_;
  std::vector<std::size_t> order_;
  std::uint64_t longest_ = 0;
};

}  // namespace strata::array::detail
