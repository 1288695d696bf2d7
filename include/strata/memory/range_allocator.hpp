#pragma once
// Best-fit allocator of byte ranges inside one preallocated region (a memory space's pool), so
// chunks get memory without a device or pinned allocation on the hot path. Free ranges are
// indexed by offset (to merge neighbours) and by length (to find the best fit in O(log n)).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace strata::memory {

class RangeAllocator {
 public:
  RangeAllocator(std::uint64_t capacity, std::uint64_t alignment);
  // The offset of `bytes` (rounded up to the alignment) at the start of the smallest free range
  // that holds them (the lowest such range on a tie), or nothing if no free range is large
  // enough.
  std::optional<std::uint64_t> allocate(std::uint64_t bytes);
  // Returns a range allocate() gave out; neighbouring free ranges merge.
  void free(std::uint64_t offset, std::uint64_t bytes);

  std::uint64_t capacity() const { return capacity_; }
  std::uint64_t used() const { return used_; }
  std::uint64_t largest_free() const;
  std::uint64_t rounded(std::uint64_t bytes) const;

 private:
  std::uint64_t capacity_;
  std::uint64_t alignment_;
  std::uint64_t used_ = 0;
  void insert_free(std::uint64_t offset, std::uint64_t length);
  void erase_free(std::map<std::uint64_t, std::uint64_t>::iterator range);

  std::map<std::uint64_t, std::uint64_t> free_;                  // offset -> length
  std::set<std::pair<std::uint64_t, std::uint64_t>> by_length_;  // (length, offset)
};

}  // namespace strata::memory
