#pragma once
// KeyIndex: the dense index of each distinct 64-bit key, in order of first appearance — an
// open-addressing hash table (linear probing, Fibonacci hashing, at most half full), a few
// nanoseconds a lookup where std::unordered_map allocates a node per key.

#include <cstdint>
#include <utility>
#include <vector>

namespace strata::dataset::detail {

class KeyIndex {
 public:
  KeyIndex() { rehash(16); }

  // The key's index and whether it was added now (then it is size() - 1).
  std::pair<std::uint32_t, bool> insert(std::uint64_t key) {
    for (std::size_t slot = slot_of(key);; slot = (slot + 1) & mask_) {
      const std::uint32_t at = index_[slot];
      if (at == empty) {
        const auto added = static_cast<std::uint32_t>(size_++);
        keys_[slot] = key;
        index_[slot] = added;
        if (2 * size_ > index_.size()) rehash(2 * index_.size());
        return {added, true};
      }
      if (keys_[slot] == key) return {at, false};
    }
  }
  // The key's index, or -1 when it was never inserted.
  std::int64_t find(std::uint64_t key) const {
    for (std::size_t slot = slot_of(key);; slot = (slot + 1) & mask_) {
      const std::uint32_t at = index_[slot];
      if (at == empty) return -1;
      if (keys_[slot] == key) return at;
    }
  }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::uint32_t empty = 0xffffffffu;

  std::size_t slot_of(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void rehash(std::size_t slots) {
    std::vector<std::uint64_t> keys(slots);
    std::vector<std::uint32_t> index(slots, empty);
    mask_ = slots - 1;
    shift_ = 64;
    for (std::size_t s = slots; s > 1; s >>= 1)
      --shift_;
    for (std::size_t slot = 0; slot < index_.size(); ++slot) {
      if (index_[slot] == empty) continue;
      std::size_t to = slot_of(keys_[slot]);
      while (index[to] != empty)
        to = (to + 1) & mask_;
      keys[to] = keys_[slot];
      index[to] = index_[slot];
    }
    keys_ = std::move(keys);
    index_ = std::move(index);
  }

  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> index_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace strata::dataset::detail
