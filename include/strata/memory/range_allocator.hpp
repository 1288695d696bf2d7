#pragma once
// First-fit allocator of byte ranges inside one preallocated region (a memory space's pool), so
// chunks get memory without a device or pinned allocation on the hot path.

#include <cstdint>
#include <map>
#include <optional>

namespace strata::memory {

class RangeAllocator {
 public:
  RangeAllocator(std::uint64_t capacity, std::uint64_t alignment);
  // The offset of a free range of `bytes` (rounded up to the alignment), or nothing if no free
  // range is large enough.
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
  std::map<std::uint64_t, std::uint64_t> free_;  // offset -> length
};

}  // namespace strata::memory
