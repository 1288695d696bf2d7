#pragma once
// The order in which a memory space gives up its unpinned copies: first those that no declared
// task will use, least recently used first; then those a declared task will use, the one whose
// next use comes last first (Belady's choice, with the tasks submitted so far as the oracle: an
// iterative sweep over more data than fits keeps most of it instead of evicting all of it).

#include <cstdint>
#include <limits>
#include <optional>
#include <set>

namespace strata::memory {

class EvictionOrder {
 public:
  struct Key {
    bool used_later = false;  // a declared task uses the chunk
    std::uint64_t rank = 0;   // unused: when last used (older first); used: the later use first
    std::uint64_t chunk = 0;
    auto operator<=>(const Key&) const = default;
  };
  using Position = std::set<Key>::const_iterator;

  // A stamp later than every one given before: "used now".
  std::uint64_t stamp() { return ++stamp_; }
  // Places `chunk`, last used at `stamp`, whose next declared use is `next_use` (none: nullopt).
  Position insert(std::uint64_t chunk, std::uint64_t stamp, std::optional<std::uint64_t> next_use) {
    return keys_.insert(key(chunk, stamp, next_use)).first;
  }
  // Places it again (reusing its node: copies are placed again at every unpin).
  Position move(Position position, std::uint64_t stamp, std::optional<std::uint64_t> next_use) {
    auto node = keys_.extract(position);
    node.value() = key(node.value().chunk, stamp, next_use);
    return keys_.insert(std::move(node)).position;
  }
  void erase(Position position) { keys_.erase(position); }
  Position begin() const { return keys_.begin(); }
  Position end() const { return keys_.end(); }

 private:
  static Key key(std::uint64_t chunk, std::uint64_t stamp, std::optional<std::uint64_t> next_use) {
    return next_use ? Key{true, std::numeric_limits<std::uint64_t>::max() - *next_use, chunk}
                    : Key{false, stamp, chunk};
  }

  std::set<Key> keys_;
  std::uint64_t stamp_ = 0;
};

}  // namespace strata::memory
