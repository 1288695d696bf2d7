#pragma once
// KeyIndex: the dense index of each distinct 64-bit key, in order of first appearance — an
// open-addressing hash table (linear probing, Fibonacci hashing, at most half full), a few
// nanoseconds a lookup where std::unordered_map allocates a node per key. A slot holds the key
// beside its index, so a lookup touches one cache line; prefetch() starts that line's load
// ahead of a lookup for tables larger than the cache.

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
      Slot& s = slots_[slot];
      if (s.index == empty) {
        const auto added = static_cast<std::uint32_t>(size_++);
        s = {key, added};
        if (2 * size_ > slots_.size()) rehash(2 * slots_.size());
        return {added, true};
      }
      if (s.key == key) return {s.index, false};
    }
  }
  // The key's index, or -1 when it was never inserted.
  std::int64_t find(std::uint64_t key) const {
    for (std::size_t slot = slot_of(key);; slot = (slot + 1) & mask_) {
      const Slot& s = slots_[slot];
      if (s.index == empty) return -1;
      if (s.key == key) return s.index;
    }
  }
  void prefetch(std::uint64_t key) const { __builtin_prefetch(&slots_[slot_of(key)]); }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::uint32_t empty = 0xffffffffu;
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t index = empty;
  };

  std::size_t slot_of(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void rehash(std::size_t slots) {
    std::vector<Slot> fresh(slots);
    mask_ = slots - 1;
    shift_ = 64;
    for (std::size_t s = slots; s > 1; s >>= 1)
      --shift_;
    for (const Slot& old : slots_) {
      if (old.index == empty) continue;
      std::size_t to = slot_of(old.key);
      while (fresh[to].index != empty)
        to = (to + 1) & mask_;
      fresh[to] = old;
    }
    slots_ = std::move(fresh);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace strata::dataset::detail
