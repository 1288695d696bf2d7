#include "strata/memory/range_allocator.hpp"

#include <algorithm>
#include <stdexcept>

namespace strata::memory {

RangeAllocator::RangeAllocator(std::uint64_t capacity, std::uint64_t alignment)
    : capacity_(capacity / alignment * alignment), alignment_(alignment) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
}

std::uint64_t RangeAllocator::rounded(std::uint64_t bytes) const {
  return std::max<std::uint64_t>(alignment_, (bytes + alignment_ - 1) / alignment_ * alignment_);
}

std::optional<std::uint64_t> RangeAllocator::allocate(std::uint64_t bytes) {
  const std::uint64_t size = rounded(bytes);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const std::uint64_t offset = it->first;
    const std::uint64_t rest = it->second - size;
    free_.erase(it);
    if (rest > 0) free_.emplace(offset + size, rest);
    used_ += size;
    return offset;
  }
  return std::nullopt;
}

void RangeAllocator::free(std::uint64_t offset, std::uint64_t bytes) {
  std::uint64_t size = rounded(bytes);
  if (offset + size > capacity_) throw std::logic_error("RangeAllocator::free: range outside pool");
  used_ -= size;
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + size == next->first) {  // merge with the following range
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {  // merge with the preceding range
      previous->second += size;
      return;
    }
  }
  free_.emplace(offset, size);
}

std::uint64_t RangeAllocator::largest_free() const {
  std::uint64_t largest = 0;
  for (const auto& [offset, length] : free_)
    largest = std::max(largest, length);
  return largest;
}

}  // namespace strata::memory
