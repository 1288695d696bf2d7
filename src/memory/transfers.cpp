// Copies between spaces, in flight: host <-> device on the device's copy queues, host <-> disk as
// spill I/O jobs on the I/O executor; each orders itself after the copies it depends on through
// events, and its completion updates the chunk's copies, frees what waited for it and plans the
// waiting acquisitions again.

#include <fmt/format.h>

#include <algorithm>

#include "manager_records.hpp"
#include "strata/base/log.hpp"
#include "strata/memory/io_threads.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::memory {
namespace {

// The events of `events` that have not completed yet (and drops the completed ones).
std::vector<device::Event> pending(std::vector<device::Event>& events) {
  std::erase_if(events, [](const device::Event& event) { return event.done(); });
  return events;
}

}  // namespace

device::Event MemoryManager::start_copy(ChunkId id, SpaceId from, SpaceId to, std::uint64_t tag,
                                        bool eviction, Actions& later) {
  Chunk& record = chunk(id);
  Copy& source = record.copies[from.index];
  Copy& target = record.copies[to.index];
  Space& src = *spaces_[from.index];
  Space& dst = *spaces_[to.index];
  auto transfer = std::make_shared<Transfer>();
  transfer->chunk = id;
  transfer->from = from;
  transfer->to = to;
  transfer->bytes = record.bytes;
  transfer->tag = tag;
  transfer->eviction = eviction;
  transfer->version = record.version;
  transfer->source_generation = source.generation;
  transfer->name = record.name;
  transfer->issued = std::chrono::steady_clock::now();

  // After the source is filled, and after whatever still reads or writes the target's memory.
  std::vector<device::Event> after = pending(target.reads);
  if (source.fill && !source.fill.done()) after.push_back(source.fill);
  if (target.fill && !target.fill.done()) after.push_back(target.fill);

  auto* host_base = static_cast<std::byte*>(spaces_[host().index]->host.data());
  // A late-sized chunk's contents are its first `size` bytes: host and device copies move those.
  const std::uint64_t moved =
      record.late_sized && record.size ? std::min(*record.size, record.bytes) : record.bytes;
  device::Event event;
  if (src.stats.kind == SpaceKind::host && dst.stats.kind == SpaceKind::disk) {
    if (target.allocated) drop_copy(id, to, later);  // a stale file: removed, a new one written
    const std::uint64_t key = next_spill_key_++;
    const std::span<const std::byte> data(host_base + source.offset, record.bytes);
    event = device::Event::manual();
    run_io(
        "spill write", std::move(after),
        [this, transfer, key, data, done = event.shared()](std::exception_ptr before) {
          transfer->io_started = std::chrono::steady_clock::now();
          try {
            if (before) std::rethrow_exception(before);
            spill_->write(key, data);
            done->complete();
          } catch (...) {
            done->complete(std::current_exception());
          }
        },
        later);
    target.spill_key = key;
    target.allocated = true;
  } else if (src.stats.kind == SpaceKind::disk && dst.stats.kind == SpaceKind::host) {
    const std::uint64_t key = source.spill_key;
    const std::span<std::byte> data(host_base + target.offset, record.bytes);
    event = device::Event::manual();
    run_io(
        "spill read", std::move(after),
        [this, transfer, key, data, done = event.shared()](std::exception_ptr before) {
          transfer->io_started = std::chrono::steady_clock::now();
          try {
            if (before) std::rethrow_exception(before);
            spill_->read(key, data);
            done->complete();
          } catch (...) {
            done->complete(std::current_exception());
          }
        },
        later);
  } else if (src.stats.kind == SpaceKind::host && dst.stats.kind == SpaceKind::device) {
    event = dst.device->queue(device::QueueKind::host_to_device)
                .copy_to_device(dst.pool, target.offset, host_base + source.offset, moved, after);
  } else if (src.stats.kind == SpaceKind::device && dst.stats.kind == SpaceKind::host) {
    event = src.device->queue(device::QueueKind::device_to_host)
                .copy_to_host(host_base + target.offset, src.pool, source.offset, moved, after);
  } else {
    throw Error(fmt::format("chunk '{}': no direct copy from {} to {}", record.name, src.stats.name,
                            dst.stats.name));
  }
  transfer->event = event;
  ++source.busy;
  ++target.busy;
  pending(source.reads);
  source.reads.push_back(event);
  target.fill = event;
  target.valid = true;  // readers from now on wait for `fill`
  ++target.generation;
  ++operations_;
  later.add([this, transfer] {
    transfer->event.on_complete(
        [this, transfer](std::exception_ptr error) { finish_copy(*transfer, error); });
  });
  return event;
}

void MemoryManager::finish_copy(const Transfer& transfer, std::exception_ptr error) {
  const auto end = std::chrono::steady_clock::now();
  Actions later;
  std::lock_guard guard(state_lock_);
  Chunk& record = chunk(transfer.chunk);
  Copy& source = record.copies[transfer.from.index];
  Copy& target = record.copies[transfer.to.index];
  Space& src = *spaces_[transfer.from.index];
  Space& dst = *spaces_[transfer.to.index];
  --source.busy;
  --target.busy;
  const bool current = target.fill.state() == transfer.event.state();
  if (error) {
    if (current && target.valid) {
      target.valid = false;  // what was meant to fill it did not arrive
      if (dst.stats.kind == SpaceKind::disk) drop_copy(transfer.chunk, transfer.to, later);
    }
    if (transfer.eviction) {
      log().warn("memory: moving '{}' from {} to {} failed: {}", transfer.name, src.stats.name,
                 dst.stats.name, [&] {
                   try {
                     std::rethrow_exception(error);
                   } catch (const std::exception& e) {
                     return std::string(e.what());
                   } catch (...) {
                     return std::string("unknown error");
                   }
                 }());
    }
  } else {
    bytes_moved_[{transfer.from.index, transfer.to.index}] += transfer.bytes;
  }
  if (transfer.eviction) {
    source.evicting = false;
    src.evicting_bytes -= transfer.bytes;
    // The moved copy goes, unless a task holds it, or it was written or refilled meanwhile (a
    // task's completion can run before this one).
    const bool unchanged =
        record.version == transfer.version && source.generation == transfer.source_generation;
    if (!source.pinned() && !error && unchanged) {
      drop_copy(transfer.chunk, transfer.from, later);  // freed once nothing else copies it
      ++src.stats.evictions;  // counted here, when the copy really leaves, not when it started
    }
  }
  // Copies that were dropped while this one used them are freed once idle; others that no task
  // holds (an eviction's target, one on the way through the host, a source whose eviction
  // failed) are candidates in their LRU list.
  for (const SpaceId space : {transfer.from, transfer.to}) {
    Copy& copy = record.copies[space.index];
    if (spaces_[space.index]->stats.kind == SpaceKind::disk) continue;
    if (copy.drop_when_idle && copy.busy == 0 && !copy.pinned()) {
      free_copy(record, space, later);
    } else if (copy.allocated && !copy.pinned() && !copy.in_lru && !copy.evicting &&
               !copy.drop_when_idle) {
      lru_push(transfer.chunk, space);
    }
  }
  if (copy_observer_) {
    auto start = transfer.issued;
    if (src.stats.kind == SpaceKind::disk || dst.stats.kind == SpaceKind::disk) {
      start = transfer.io_started;
    } else if (dst.stats.kind == SpaceKind::device) {
      start = std::max(start, dst.upload_end);
      dst.upload_end = end;
    } else {
      start = std::max(start, src.download_end);
      src.download_end = end;
    }
    copy_observer_(CopyRecord{transfer.name, transfer.from, transfer.to, transfer.bytes,
                              std::min(start, end), end, transfer.tag, dst.stats.used});
  }
  if (record.destroyed && std::none_of(record.copies.begin(), record.copies.end(),
                                       [](const Copy& copy) { return copy.busy > 0; })) {
    chunks_.erase(transfer.chunk.index);
  }
  operation_done(later);
}

void MemoryManager::operation_done(Actions& later) {
  --operations_;
  idle_.notify_all();  // drain() waits for none in flight
  retry_waiting(later);
}

void MemoryManager::drop_copy(ChunkId id, SpaceId space_id, Actions& later) {
  Chunk& record = chunk(id);
  Copy& copy = record.copies[space_id.index];
  Space& space = *spaces_[space_id.index];
  if (copy.in_lru) {
    space.lru.erase(copy.lru_position);
    copy.in_lru = false;
  }
  copy.valid = false;
  if (!copy.allocated) return;
  if (space.stats.kind == SpaceKind::disk) {
    // Its file goes once the copies reading or writing it are done; the key is never reused.
    std::vector<device::Event> after = pending(copy.reads);
    if (copy.fill && !copy.fill.done()) after.push_back(copy.fill);
    ++operations_;
    run_io(
        "spill remove", std::move(after),
        [this, key = copy.spill_key](std::exception_ptr) {
          try {
            spill_->remove(key);
          } catch (const std::exception& e) {
            log().warn("memory: removing a spill file failed: {}", e.what());
          }
          Actions after_removal;
          std::lock_guard guard(state_lock_);
          operation_done(after_removal);
        },
        later);
    copy.allocated = false;
    copy.spill_key = 0;
    return;
  }
  if (copy.busy > 0) {
    copy.drop_when_idle = true;  // a copy in flight still reads or writes its memory
    return;
  }
  free_copy(record, space_id, later);
}

void MemoryManager::free_copy(Chunk& record, SpaceId space_id, Actions&) {
  Copy& copy = record.copies[space_id.index];
  Space& space = *spaces_[space_id.index];
  if (copy.in_lru) {
    space.lru.erase(copy.lru_position);
    copy.in_lru = false;
  }
  if (copy.allocated) {
    space.allocator->free(copy.offset, record.bytes);
    space.stats.used = space.allocator->used();
  }
  copy.allocated = false;
  copy.valid = false;
  copy.drop_when_idle = false;
  ++copy.generation;
  copy.fill = device::Event();
  copy.reads.clear();
}

void MemoryManager::run_io(const char* what, std::vector<device::Event> after,
                           std::function<void(std::exception_ptr)> job, Actions& later) {
  later.add([this, what, after = std::move(after), job = std::move(job)]() mutable {
    device::when_all(after).on_complete(
        [this, what, job = std::move(job)](std::exception_ptr before) mutable {
          post_io(what, [job = std::move(job), before] { job(before); });
        });
  });
}

void MemoryManager::post_io(const char* what, std::function<void()> job) {
  IoExecutor executor;
  {
    std::lock_guard guard(state_lock_);
    executor = io_executor_;
  }
  if (executor) {
    executor(what, std::move(job));
  } else {
    io_threads_->run(std::move(job));
  }
}

void MemoryManager::set_io_executor(IoExecutor executor) {
  std::lock_guard guard(state_lock_);
  io_executor_ = std::move(executor);
}

void MemoryManager::drain() {
  std::unique_lock state(state_lock_);
  idle_.wait(state, [this] { return operations_ == 0; });
}

}  // namespace strata::memory
