#pragma once
// ItemCache: one rank's cache of loaded items, on top of the memory manager (the rocket paper's
// §4.1 first two levels). An entry is an item being loaded (the paper's WRITING state: jobs that
// need it are ordered after its load) or loaded (READONLY, shared by any number of jobs); an entry
// that no job references sits in a least-recently-used list and is discarded when the cache holds
// more items (or bytes) than its limit. Where the item's bytes live — device, host, or disk when
// both are full — is the memory manager's business: device residency follows its LRU eviction
// one tier up, so the device level holds what fits the device's capacity.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>

#include "strata/allpairs/application.hpp"
#include "strata/memory/memory_manager.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::allpairs {

// How many items (or bytes of items) a rank keeps; 0: no limit of that kind.
struct CacheLimits {
  std::uint64_t slots = 0;
  std::uint64_t bytes = 0;
};

// What a job gets for one item: the data compare tasks declare (bound to the item's chunk once it
// is loaded) and the task that completes when it is.
struct ItemUse {
  runtime::DataHandle data;
  runtime::TaskHandle ready;
  bool hit = false;  // the entry existed (loaded or being loaded)
};

// Counters of one rank's cache.
struct ItemCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;  // acquisitions that started a load
  std::uint64_t discarded = 0;
  std::uint64_t peak_items = 0;
  std::uint64_t peak_bytes = 0;
};

class ItemCache {
 public:
  // Starts loading `item` into `data` (on the device of `device`); returns the task that
  // completes when the item's chunk is bound to `data` and valid.
  using Loader =
      std::function<runtime::TaskHandle(ItemIndex item, unsigned device, runtime::DataHandle data)>;
  // Discards a loaded item's chunk (and its binding); called without the cache's lock.
  using Discarder = std::function<void(ItemIndex item, runtime::DataHandle data,
                                       std::optional<memory::ChunkId> chunk)>;

  ItemCache(runtime::Runtime& runtime, CacheLimits limits, Loader loader, Discarder discarder);

  // References `item` for one job, starting its load on `device` when no entry exists.
  ItemUse acquire(ItemIndex item, unsigned device);
  // Ends one job's reference; the least-recently-used unreferenced entries over the limit go.
  void release(ItemIndex item);
  // Records the chunk (and its size) that holds a loaded item; nullopt: the item was skipped or
  // its load failed. Until then the entry stays, even with no job referencing it; from then on the
  // cache owns the chunk (its discarder destroys it), and may discard it at once when over limit.
  void loaded(ItemIndex item, std::optional<memory::ChunkId> chunk, std::uint64_t bytes);
  // The chunk of a loaded item that this rank holds (for the distributed cache); nullopt else.
  std::optional<memory::ChunkId> holds(ItemIndex item) const;
  // Every item with an entry (loaded or being loaded), in increasing order.
  std::vector<ItemIndex> items() const;

  ItemCacheStats stats() const;
  // Discards every unreferenced entry (at the end of a run).
  void clear();

 private:
  struct Entry {
    runtime::DataHandle data;
    runtime::TaskHandle ready;
    std::optional<memory::ChunkId> chunk;
    std::uint64_t bytes = 0;
    bool loaded = false;
    std::uint64_t references = 0;
    std::list<ItemIndex>::iterator unused;  // valid when loaded and references == 0
  };
  struct Victim {
    ItemIndex item;
    runtime::DataHandle data;
    std::optional<memory::ChunkId> chunk;
  };
  // Removes least-recently-used unreferenced entries while over the limit; caller holds lock_.
  std::vector<Victim> over_limit();
  bool over() const;

  runtime::Runtime& runtime_;
  const CacheLimits limits_;
  const Loader loader_;
  const Discarder discarder_;
  mutable std::mutex lock_;
  std::condition_variable ready_set_;  // an entry's loader returned its ready task
  std::map<ItemIndex, Entry> entries_;
  std::list<ItemIndex> unused_;  // least recently used first
  std::uint64_t bytes_ = 0;
  ItemCacheStats stats_;
};

}  // namespace strata::allpairs
