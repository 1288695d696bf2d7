#include "strata/allpairs/item_cache.hpp"

#include <algorithm>
#include <string>

namespace strata::allpairs {

ItemCache::ItemCache(runtime::Runtime& runtime, CacheLimits limits, Loader loader,
                     Discarder discarder)
    : runtime_(runtime),
      limits_(limits),
      loader_(std::move(loader)),
      discarder_(std::move(discarder)) {}

ItemUse ItemCache::acquire(ItemIndex item, unsigned device) {
  std::vector<Victim> victims;
  ItemUse use;
  {
    std::unique_lock guard(lock_);
    auto found = entries_.find(item);
    if (found != entries_.end()) {
      Entry& entry = found->second;
      if (entry.references++ == 0 && entry.loaded) unused_.erase(entry.unused);
      ++stats_.hits;
      // Its loader may still be submitting the load (a moment): wait for its ready task.
      ready_set_.wait(guard, [&] { return static_cast<bool>(entry.ready); });
      return ItemUse{entry.data, entry.ready, true};
    }
    ++stats_.misses;
    Entry& entry = entries_[item];
    entry.data = runtime_.create_data("item " + std::to_string(item));
    entry.references = 1;
    stats_.peak_items = std::max<std::uint64_t>(stats_.peak_items, entries_.size());
    use.data = entry.data;
    victims = over_limit();
  }
  for (Victim& victim : victims)
    discarder_(victim.item, victim.data, victim.chunk);
  // The loader submits tasks: call it without the lock (their callbacks may call loaded()).
  use.ready = loader_(item, device, use.data);
  {
    std::lock_guard guard(lock_);
    entries_.at(item).ready = use.ready;
  }
  ready_set_.notify_all();
  return use;
}

void ItemCache::loaded(ItemIndex item, std::optional<memory::ChunkId> chunk, std::uint64_t bytes) {
  std::vector<Victim> victims;
  {
    std::lock_guard guard(lock_);
    Entry& entry = entries_.at(item);
    entry.chunk = chunk;
    entry.bytes = bytes;
    entry.loaded = true;
    // Its jobs may all have ended before the load was recorded: it can go only from now on.
    if (entry.references == 0) entry.unused = unused_.insert(unused_.end(), item);
    bytes_ += bytes;
    stats_.peak_bytes = std::max(stats_.peak_bytes, bytes_);
    victims = over_limit();
  }
  for (Victim& victim : victims)
    discarder_(victim.item, victim.data, victim.chunk);
}

void ItemCache::release(ItemIndex item) {
  std::vector<Victim> victims;
  {
    std::lock_guard guard(lock_);
    Entry& entry = entries_.at(item);
    if (--entry.references == 0 && entry.loaded) entry.unused = unused_.insert(unused_.end(), item);
    victims = over_limit();
  }
  for (Victim& victim : victims)
    discarder_(victim.item, victim.data, victim.chunk);
}

std::optional<memory::ChunkId> ItemCache::holds(ItemIndex item) const {
  std::lock_guard guard(lock_);
  auto found = entries_.find(item);
  if (found == entries_.end() || !found->second.loaded) return std::nullopt;
  return found->second.chunk;
}

std::vector<ItemIndex> ItemCache::items() const {
  std::lock_guard guard(lock_);
  std::vector<ItemIndex> held;
  held.reserve(entries_.size());
  for (const auto& entry : entries_)
    held.push_back(entry.first);
  return held;
}

bool ItemCache::over() const {
  return (limits_.slots != 0 && entries_.size() > limits_.slots) ||
         (limits_.bytes != 0 && bytes_ > limits_.bytes);
}

std::vector<ItemCache::Victim> ItemCache::over_limit() {
  std::vector<Victim> victims;
  // Only loaded, unreferenced entries can go; an entry being loaded is always referenced.
  while (over() && !unused_.empty()) {
    const ItemIndex item = unused_.front();
    unused_.pop_front();
    auto found = entries_.find(item);
    victims.push_back(Victim{item, found->second.data, found->second.chunk});
    bytes_ -= found->second.bytes;
    entries_.erase(found);
    ++stats_.discarded;
  }
  return victims;
}

void ItemCache::clear() {
  std::vector<Victim> victims;
  {
    std::lock_guard guard(lock_);
    for (const ItemIndex item : unused_) {
      auto found = entries_.find(item);
      victims.push_back(Victim{item, found->second.data, found->second.chunk});
      bytes_ -= found->second.bytes;
      entries_.erase(found);
    }
    unused_.clear();
  }
  for (Victim& victim : victims)
    discarder_(victim.item, victim.data, victim.chunk);
}

ItemCacheStats ItemCache::stats() const {
  std::lock_guard guard(lock_);
  return stats_;
}

}  // namespace strata::allpairs
