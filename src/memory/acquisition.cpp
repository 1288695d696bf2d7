// Acquisitions: reserving and pinning a task's chunks in one space (all or none), evicting
// least-recently-used copies one tier up to make room, issuing the fetches, and waiting, without
// blocking anyone, while other acquisitions hold the memory.

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "manager_records.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::memory {

void MemoryManager::acquire_async(std::span<const ChunkRequest> requests, SpaceId space,
                                  AcquireCallback done, std::uint64_t tag) {
  auto acquisition = std::make_shared<Acquisition>();
  acquisition->requests.assign(requests.begin(), requests.end());
  acquisition->space = space;
  acquisition->done = std::move(done);
  acquisition->tag = tag;
  Actions later;
  std::lock_guard guard(state_lock_);
  try {
    if (space.index >= spaces_.size()) {
      throw Error(fmt::format("memory space #{} does not exist (this manager has {})", space.index,
                              spaces_.size()));
    }
    if (space == disk()) throw Error("chunks are acquired in host or device memory, not on disk");
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (requests[j].chunk == requests[i].chunk) {
          throw Error(fmt::format("chunk '{}' is requested twice in one acquisition",
                                  chunk(requests[i].chunk).name));
        }
      }
      const Chunk& record = chunk(requests[i].chunk);
      if (record.late_sized && !record.size && requests[i].access != ChunkAccess::write) {
        throw Error(fmt::format(
            "chunk '{}' is read before its size is known: it is late-sized, and no task that "
            "wrote it has set its size",
            record.name));
      }
      total += spaces_[space.index]->allocator->rounded(record.bytes);
    }
    if (total > spaces_[space.index]->allocator->capacity()) out_of_memory(requests, space);
    if (plan(*acquisition, later) == Plan::done) {
      complete(acquisition, later);
    } else {
      waiting_.push_back(acquisition);
    }
  } catch (...) {
    later.add([acquisition, error = std::current_exception()] { acquisition->done({}, error); });
  }
}

void MemoryManager::retry_waiting(Actions& later) {
  for (auto next = waiting_.begin(); next != waiting_.end();) {
    const std::shared_ptr<Acquisition> acquisition = *next;
    try {
      if (plan(*acquisition, later) == Plan::wait) {
        ++next;
        continue;
      }
      complete(acquisition, later);
    } catch (...) {
      later.add([acquisition, error = std::current_exception()] { acquisition->done({}, error); });
    }
    next = waiting_.erase(next);
  }
}

void MemoryManager::complete(const std::shared_ptr<Acquisition>& acquisition, Actions& later) {
  later.add([this, acquisition] {
    device::when_all(acquisition->ready).on_complete([this, acquisition](std::exception_ptr error) {
      if (!error) {
        acquisition->done(std::move(acquisition->views), nullptr);
        return;
      }
      {
        // A copy it waited for failed: nothing stays pinned.
        Actions again;
        std::lock_guard guard(state_lock_);
        for (const ChunkRequest& request : acquisition->requests)
          unpin(request.chunk, acquisition->space, request.access);
        retry_waiting(again);
      }
      acquisition->done({}, error);
    });
  });
}

bool MemoryManager::can_progress(SpaceId space) const {
  return operations_ > 0 || spaces_[space.index]->pinned_bytes > 0;
}

MemoryManager::Plan MemoryManager::plan(Acquisition& acquisition, Actions& later) {
  // An eviction started for it that failed (a full disk) fails it: it cannot get that room.
  for (const device::Event& move : acquisition.moves) {
    if (move.done()) {
      if (auto error = move.state()->error()) std::rethrow_exception(error);
    }
  }
  std::erase_if(acquisition.moves, [](const device::Event& move) { return move.done(); });

  const SpaceId space = acquisition.space;
  Space& target = *spaces_[space.index];
  std::vector<const ChunkRequest*> pinned;
  const auto roll_back = [&] {
    for (const ChunkRequest* request : pinned)
      unpin(request->chunk, space, request->access);
  };
  const auto wait = [&] {
    roll_back();
    if (!can_progress(space)) out_of_memory(acquisition.requests, space);
    return Plan::wait;
  };
  std::uint64_t hits = 0;
  std::uint64_t missing = 0;
  try {
    // First the memory, all of it; then the copies.
    for (const ChunkRequest& request : acquisition.requests) {
      Chunk& record = chunk(request.chunk);
      Copy& copy = record.copies[space.index];
      if (copy.valid || (request.access == ChunkAccess::write && copy.allocated)) ++hits;
      copy.drop_when_idle = false;
      if (!copy.allocated && !allocate(request.chunk, space, later, missing == 0)) {
        missing += target.allocator->rounded(record.bytes);
        continue;
      }
      pin(request.chunk, space, request.access);  // pinned: evictions leave it alone
      pinned.push_back(&request);
    }
    if (missing > 0) {
      make_room(space, missing, acquisition, later);
      if (acquisition.moves.empty() && !acquisition.moved_own_chunks) {
        // Nothing else could make way: the request's own copies may split the free space into
        // pieces its larger chunks do not fit. They make way too (once) and come back elsewhere.
        acquisition.moved_own_chunks = true;
        roll_back();
        pinned.clear();
        make_room(space, missing, acquisition, later);
        if (acquisition.moves.empty()) return plan(acquisition, later);  // dropped: room now
      }
      return wait();
    }
    for (const ChunkRequest& request : acquisition.requests) {
      const Copy& copy = chunk(request.chunk).copies[space.index];
      if (request.access != ChunkAccess::write && !copy.valid &&
          !fetch(request.chunk, space, acquisition, later)) {
        return wait();
      }
    }
  } catch (...) {
    roll_back();
    throw;
  }
  target.stats.hits += hits;
  target.stats.misses += acquisition.requests.size() - hits;
  acquisition.views.clear();
  acquisition.ready.clear();
  for (const ChunkRequest& request : acquisition.requests) {
    const Copy& copy = chunk(request.chunk).copies[space.index];
    // Readers wait for the copy being filled (by them or by an earlier acquisition); writers
    // also for copies still reading the old contents out.
    if (copy.fill && !copy.fill.done()) acquisition.ready.push_back(copy.fill);
    if (request.access != ChunkAccess::read) {
      for (const device::Event& read : copy.reads)
        if (!read.done()) acquisition.ready.push_back(read);
    }
    acquisition.views.push_back(view_of(request.chunk, space, request.access));
  }
  return Plan::done;
}

bool MemoryManager::only_valid_copy(const Chunk& record, SpaceId space) const {
  // A task pinned to write the chunk elsewhere does not make this copy dead: its acquisition may
  // still roll back, or it may read before it writes.
  if (!record.copies[space.index].valid) return false;
  for (std::uint32_t s = 0; s < spaces_.size(); ++s) {
    if (s != space.index && record.copies[s].valid) return false;
  }
  return true;
}

bool MemoryManager::allocate(ChunkId id, SpaceId space_id, Actions& later, bool scan) {
  Space& space = *spaces_[space_id.index];
  Chunk& record = chunk(id);
  Copy& copy = record.copies[space_id.index];
  for (;;) {
    if (auto offset = space.allocator->allocate(record.bytes)) {
      copy.allocated = true;
      copy.offset = *offset;
      space.stats.used = space.allocator->used();
      space.stats.peak = std::max(space.stats.peak, space.stats.used);
      return true;
    }
    if (!scan) return false;
    // Room at once: the first copy in eviction order that is also valid elsewhere (or stale)
    // and that no copy in flight reads or writes, among the first few: past them the caller
    // evicts in that order (make_room). A full scan went past every only-valid copy at each
    // allocation, quadratic in the chunks held (thousands of reductions' partials on a full
    // device).
    constexpr std::size_t candidates = 64;
    std::optional<std::uint64_t> victim;
    std::size_t looked = 0;
    for (const EvictionOrder::Key& key : space.lru) {
      const std::uint64_t index = key.chunk;
      if (looked++ == candidates) break;
      const Chunk& candidate = *chunks_.at(index);
      const Copy& other = candidate.copies[space_id.index];
      if (other.busy == 0 && !other.evicting && !only_valid_copy(candidate, space_id)) {
        victim = index;
        break;
      }
    }
    if (!victim) return false;
    drop_for_room(*chunks_.at(*victim), space_id, later);
  }
}

void MemoryManager::make_room(SpaceId space_id, std::uint64_t bytes, Acquisition& acquisition,
                              Actions& later) {
  // Moves the copies that are the only valid ones one tier up (device -> host -> disk), in
  // eviction order; their memory is free once the move completes. Copies being copied are
  // skipped: they are in use.
  Space& space = *spaces_[space_id.index];
  const SpaceId up = space.stats.kind == SpaceKind::device ? host() : disk();
  for (auto next = space.lru.begin(); next != space.lru.end() && space.evicting_bytes < bytes;) {
    const ChunkId victim{(next++)->chunk};
    Chunk& record = chunk(victim);
    Copy& copy = record.copies[space_id.index];
    if (copy.busy > 0 || copy.evicting) continue;
    if (!only_valid_copy(record, space_id)) {
      drop_for_room(record, space_id, later);
      continue;
    }
    if (up == host()) {
      Copy& upper = record.copies[host().index];
      if (upper.pinned()) continue;  // a task writes it there: never copy under its feet
      if (!upper.allocated && !allocate(victim, host(), later)) {
        make_room(host(), record.bytes, acquisition, later);
        continue;
      }
      upper.drop_when_idle = false;
    }
    acquisition.moves.push_back(start_copy(victim, space_id, up, acquisition.tag, true, later));
    copy.evicting = true;
    space.lru.erase(copy.lru_position);
    copy.in_lru = false;
    space.evicting_bytes += record.bytes;  // counted as an eviction once the move drops it
  }
}

void MemoryManager::drop_for_room(Chunk& record, SpaceId space, Actions& later) {
  // An eviction only if it held the current contents: memory allocated for an acquisition that
  // then had to wait (and was never filled), or a stale copy, holds nothing worth counting.
  if (record.copies[space.index].valid) ++spaces_[space.index]->stats.evictions;
  free_copy(record, space, later);
}

bool MemoryManager::fetch(ChunkId id, SpaceId space, Acquisition& acquisition, Actions& later) {
  Chunk& record = chunk(id);
  // The nearest valid copy: the host, then a device, then the disk.
  std::optional<SpaceId> source;
  if (record.copies[host().index].valid) source = host();
  for (std::uint32_t s = 2; s < spaces_.size() && !source; ++s)
    if (record.copies[s].valid) source = SpaceId{s};
  if (!source && record.copies[disk().index].valid) source = disk();
  if (!source) throw Error(fmt::format("chunk '{}' is read before anything wrote it", record.name));

  if (*source == host() || space == host()) {
    start_copy(id, *source, space, acquisition.tag, false, later);
    return true;
  }
  // Through the host: disk -> host -> device, or device -> host -> another device.
  Copy& staged = record.copies[host().index];
  if (!staged.allocated && !allocate(id, host(), later)) {
    make_room(host(), record.bytes, acquisition, later);
    return false;
  }
  staged.drop_when_idle = false;
  start_copy(id, *source, host(), acquisition.tag, false, later);
  start_copy(id, host(), space, acquisition.tag, false, later);
  return true;
}

}  // namespace strata::memory
