#include "strata/memory/range_allocator.hpp"

#include <algorithm>
#include <stdexcept>

namespace strata::memory {

RangeAllocator::RangeAllocator(std::uint64_t capacity, std::uint64_t alignment)
    : capacity_(capacity / alignment * alignment), alignment_(alignment) {
  if (capacity_ > 0) insert_free(0, capacity_);
}

std::uint64_t RangeAllocator::rounded(std::uint64_t bytes) const {
  return std::max<std::uint64_t>(alignment_, (bytes + alignment_ - 1) / alignment_ * alignment_);
}

void RangeAllocator::insert_free(std::uint64_t offset, std::uint64_t length) {
  free_.emplace(offset, length);
  by_length_.emplace(length, offset);
}

void RangeAllocator::erase_free(std::map<std::uint64_t, std::uint64_t>::iterator range) {
  by_length_.erase({range->second, range->first});
  free_.erase(range);
}

std::optional<std::uint64_t> RangeAllocator::allocate(std::uint64_t bytes) {
  const std::uint64_t size = rounded(bytes);
  const auto best = by_length_.lower_bound({size, 0});
  if (best == by_length_.end()) return std::nullopt;
  const auto [length, offset] = *best;
  erase_free(free_.find(offset));
  if (length > size) insert_free(offset + size, length - size);
  used_ += size;
  return offset;
}

void RangeAllocator::free(std::uint64_t offset, std::uint64_t bytes) {
  std::uint64_t size = rounded(bytes);
  if (offset + size > capacity_) throw std::logic_error("RangeAllocator::free: range outside pool");
  used_ -= size;
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + size == next->first) {  // merge with the following range
    size += next->second;
    const auto merged = next++;
    erase_free(merged);
  }
  if (next != free_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {  // merge with the preceding range
      offset = previous->first;
      size += previous->second;
      erase_free(previous);
    }
  }
  insert_free(offset, size);
}

std::uint64_t RangeAllocator::largest_free() const {
  return by_length_.empty() ? 0 : by_length_.rbegin()->first;
}

}  // namespace strata::memory
