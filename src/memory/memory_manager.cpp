#include "strata/memory/memory_manager.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "strata/base/units.hpp"

namespace strata::memory {

// One chunk's copy in one space.
struct MemoryManager::Copy {
  bool allocated = false;
  bool valid = false;
  std::uint64_t offset = 0;
  unsigned readers = 0;
  bool writer = false;
  bool in_lru = false;
  std::list<std::uint64_t>::iterator lru_position;
  bool pinned() const { return readers > 0 || writer; }
};

struct MemoryManager::Chunk {
  std::string name;
  std::uint64_t bytes = 0;
  std::uint64_t version = 0;
  std::vector<Copy> copies;  // per space
};

// A memory space: its pool and the least-recently-used list of its unpinned copies.
struct MemoryManager::Space {
  SpaceStats stats;
  device::Device* device = nullptr;
  device::DeviceBuffer pool;                  // device spaces
  device::HostBuffer host;                    // host space
  std::unique_ptr<RangeAllocator> allocator;  // host and device spaces
  std::list<std::uint64_t> lru;               // front: least recently used
  std::uint64_t pinned_bytes = 0;
};

namespace {

const char* kind_name(SpaceKind kind) {
  switch (kind) {
    case SpaceKind::device:
      return "device";
    case SpaceKind::host:
      return "host";
    case SpaceKind::disk:
      return "disk";
  }
  return "?";
}

device::HostBuffer aligned_host_buffer(std::uint64_t bytes) {
  constexpr std::uint64_t alignment = 4096;
  const std::uint64_t rounded =
      std::max(alignment, (bytes + alignment - 1) / alignment * alignment);
  void* data = std::aligned_alloc(alignment, rounded);
  if (data == nullptr)
    throw OutOfMemory(fmt::format("cannot allocate the {} host memory pool", format_bytes(bytes)));
  return device::HostBuffer(data, bytes, [](void* p) { std::free(p); });
}

// The configured spill root, else $TMPDIR, else /tmp.
std::string spill_root_for(const MemoryOptions& options) {
  if (!options.spill_root.empty()) return options.spill_root;
  const char* tmpdir = std::getenv("TMPDIR");  // NOLINT(concurrency-mt-unsafe): read only
  return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
}

// Evicting a copy needs room one tier up, and there is none right now.
struct NoRoomUpstream {};

}  // namespace

device::KernelArg ChunkView::argument(device::ElementType type) const {
  if (buffer == nullptr) {
    throw Error("a chunk acquired in host memory is not a device kernel argument");
  }
  return device::KernelArg::array_of(*buffer, type, offset);
}

MemoryManager::MemoryManager(const MemoryOptions& options,
                             std::span<device::Device* const> devices) {
  auto host = std::make_unique<Space>();
  host->stats = SpaceStats{"host", SpaceKind::host, options.host_capacity};
  // Pinned where the first device's backend offers it, so its copies run at full speed.
  host->host = devices.empty() ? aligned_host_buffer(options.host_capacity)
                               : devices.front()->allocate_host(options.host_capacity);
  host->allocator = std::make_unique<RangeAllocator>(options.host_capacity, 256);
  spaces_.push_back(std::move(host));

  spill_ = std::make_unique<SpillStore>(spill_root_for(options), options.spill_capacity);
  auto disk = std::make_unique<Space>();
  disk->stats =
      SpaceStats{"disk (" + spill_->directory() + ")", SpaceKind::disk, options.spill_capacity};
  spaces_.push_back(std::move(disk));

  for (device::Device* dev : devices) {
    const std::uint64_t capacity =
        options.device_capacity != 0 ? options.device_capacity : dev->info().memory_bytes / 10 * 9;
    auto space = std::make_unique<Space>();
    space->stats = SpaceStats{dev->info().id, SpaceKind::device, capacity};
    space->device = dev;
    space->pool = dev->allocate(capacity);  // the pool: no device allocation on the hot path
    space->allocator = std::make_unique<RangeAllocator>(capacity, 256);
    device_spaces_[dev] = SpaceId{static_cast<std::uint32_t>(spaces_.size())};
    spaces_.push_back(std::move(space));
  }
}

MemoryManager::~MemoryManager() = default;

SpaceId MemoryManager::space_of(const device::Device& device) const {
  auto found = device_spaces_.find(&device);
  if (found == device_spaces_.end()) {
    throw Error(
        fmt::format("device '{}' has no memory space in this memory manager", device.info().id));
  }
  return found->second;
}

std::size_t MemoryManager::space_count() const {
  return spaces_.size();
}

MemoryManager::Chunk& MemoryManager::chunk(ChunkId id) {
  auto found = chunks_.find(id.index);
  if (found == chunks_.end()) throw Error(fmt::format("unknown chunk #{}", id.index));
  return *found->second;
}

const MemoryManager::Chunk& MemoryManager::chunk(ChunkId id) const {
  auto found = chunks_.find(id.index);
  if (found == chunks_.end()) throw Error(fmt::format("unknown chunk #{}", id.index));
  return *found->second;
}

ChunkId MemoryManager::create_chunk(std::string name, std::uint64_t bytes,
                                    std::span<const std::byte> initial) {
  if (!initial.empty() && initial.size() != bytes) {
    throw Error(fmt::format("chunk '{}': initial data has {} B, the chunk {} B", name,
                            initial.size(), bytes));
  }
  ChunkId id;
  {
    std::lock_guard guard(state_lock_);
    id = ChunkId{next_chunk_++};
    auto record = std::make_unique<Chunk>();
    record->name = std::move(name);
    record->bytes = bytes;
    record->copies.resize(spaces_.size());
    chunks_.emplace(id.index, std::move(record));
  }
  if (!initial.empty()) {
    const ChunkRequest write{id, ChunkAccess::write};
    auto views = acquire(std::span(&write, 1), host());
    std::memcpy(views.front().host, initial.data(), bytes);
    release(std::span(&write, 1), host());
  }
  return id;
}

void MemoryManager::destroy_chunk(ChunkId id) {
  std::lock_guard guard(state_lock_);
  Chunk& record = chunk(id);
  for (std::uint32_t s = 0; s < spaces_.size(); ++s) {
    if (record.copies[s].pinned()) {
      throw Error(fmt::format("chunk '{}' is destroyed while a task holds it", record.name));
    }
    drop_copy(id, SpaceId{s});
  }
  chunks_.erase(id.index);
  released_.notify_all();
}

std::uint64_t MemoryManager::chunk_bytes(ChunkId id) const {
  std::lock_guard guard(state_lock_);
  return chunk(id).bytes;
}

const std::string& MemoryManager::chunk_name(ChunkId id) const {
  std::lock_guard guard(state_lock_);
  return chunk(id).name;
}

std::vector<ChunkView> MemoryManager::acquire(std::span<const ChunkRequest> requests,
                                              SpaceId space) {
  if (space == disk()) throw Error("chunks are acquired in host or device memory, not on disk");
  std::lock_guard one_at_a_time(staging_lock_);
  std::unique_lock state(state_lock_);
  std::uint64_t total = 0;
  for (const ChunkRequest& request : requests)
    total += spaces_[space.index]->allocator->rounded(chunk(request.chunk).bytes);
  if (total > spaces_[space.index]->allocator->capacity()) out_of_memory(requests, space);
  std::vector<ChunkView> views;
  for (;;) {
    const std::uint64_t epoch = release_epoch_;
    if (try_acquire(requests, space, views, state)) return views;
    // Memory is short. Others holding memory here will release it: wait. Nobody: it can't fit.
    if (spaces_[space.index]->pinned_bytes == 0) out_of_memory(requests, space);
    released_.wait(state, [&] { return release_epoch_ != epoch; });
  }
}

bool MemoryManager::try_acquire(std::span<const ChunkRequest> requests, SpaceId space,
                                std::vector<ChunkView>& views,
                                std::unique_lock<std::mutex>& state) {
  Space& target = *spaces_[space.index];
  std::vector<ChunkRequest> pinned;
  std::uint64_t hits = 0;
  const auto roll_back = [&] {
    for (const ChunkRequest& request : pinned)
      unpin(request.chunk, space, request.access);
  };
  try {
    for (const ChunkRequest& request : requests) {
      Chunk& record = chunk(request.chunk);
      Copy& copy = record.copies[space.index];
      const bool needs_data = request.access != ChunkAccess::write;
      if (copy.valid || (!needs_data && copy.allocated)) ++hits;
      if (!copy.allocated && !allocate(request.chunk, space, state)) {
        roll_back();
        return false;
      }
      pin(request.chunk, space, request.access);  // pinned: later evictions leave it alone
      pinned.push_back(request);
      if (needs_data && !copy.valid) fetch(request.chunk, space, state);
    }
  } catch (const NoRoomUpstream&) {
    roll_back();
    return false;
  } catch (...) {
    roll_back();
    throw;
  }
  target.stats.hits += hits;
  target.stats.misses += requests.size() - hits;
  views.clear();
  for (const ChunkRequest& request : requests)
    views.push_back(view_of(request.chunk, space));
  return true;
}

bool MemoryManager::allocate(ChunkId id, SpaceId space_id, std::unique_lock<std::mutex>& state) {
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
    if (!make_room(space_id, state)) return false;
  }
}

bool MemoryManager::make_room(SpaceId space_id, std::unique_lock<std::mutex>& state) {
  // The least recently used unpinned copy goes; if it cannot move up (the tier above is full of
  // pinned chunks), the next one is tried.
  // Evicting a copy erases only that copy from this list (the recursion for room one tier up
  // works on the upper space's list), so stepping past it first keeps the iterator valid.
  std::list<std::uint64_t>& lru = spaces_[space_id.index]->lru;
  for (auto next = lru.begin(); next != lru.end();) {
    const std::uint64_t victim = *next++;
    try {
      evict(ChunkId{victim}, space_id, state);
      return true;
    } catch (const NoRoomUpstream&) {
    }
  }
  return false;
}

void MemoryManager::evict(ChunkId id, SpaceId space_id, std::unique_lock<std::mutex>& state) {
  Chunk& record = chunk(id);
  Copy& copy = record.copies[space_id.index];
  // Saved one tier up only if no other space has a valid copy, and no task is writing the
  // chunk elsewhere (its write replaces this data; copying into a copy being written would
  // corrupt it).
  bool only_valid_copy = copy.valid;
  for (std::uint32_t s = 0; s < spaces_.size() && only_valid_copy; ++s) {
    if (s != space_id.index && (record.copies[s].valid || record.copies[s].writer)) {
      only_valid_copy = false;
    }
  }
  if (only_valid_copy) {
    // Keep it safe one tier up: device -> host, host -> disk.
    const SpaceId up = spaces_[space_id.index]->stats.kind == SpaceKind::device ? host() : disk();
    if (copy.in_lru) {  // not a candidate while it moves
      spaces_[space_id.index]->lru.erase(copy.lru_position);
      copy.in_lru = false;
    }
    ++copy.readers;
    try {
      if (up == host() && !record.copies[host().index].allocated && !allocate(id, host(), state)) {
        throw NoRoomUpstream{};
      }
      copy_between(id, space_id, up, state);
    } catch (...) {
      --copy.readers;
      if (!copy.pinned()) {  // back in the list, as it was
        spaces_[space_id.index]->lru.push_front(id.index);
        copy.lru_position = spaces_[space_id.index]->lru.begin();
        copy.in_lru = true;
      }
      throw;
    }
    --copy.readers;
    record.copies[up.index].valid = true;
    if (up != disk() && !record.copies[up.index].pinned() && !record.copies[up.index].in_lru) {
      Space& upper = *spaces_[up.index];
      upper.lru.push_back(id.index);
      record.copies[up.index].lru_position = std::prev(upper.lru.end());
      record.copies[up.index].in_lru = true;
    }
  }
  ++spaces_[space_id.index]->stats.evictions;
  drop_copy(id, space_id);
}

void MemoryManager::fetch(ChunkId id, SpaceId space, std::unique_lock<std::mutex>& state) {
  Chunk& record = chunk(id);
  // The nearest valid copy: the host, then a device, then the disk.
  std::optional<SpaceId> source;
  if (record.copies[host().index].valid) source = host();
  for (std::uint32_t s = 2; s < spaces_.size() && !source; ++s)
    if (record.copies[s].valid) source = SpaceId{s};
  if (!source && record.copies[disk().index].valid) source = disk();
  if (!source) throw Error(fmt::format("chunk '{}' is read before anything wrote it", record.name));

  if (*source == host() || space == host()) {
    copy_between(id, *source, space, state);
  } else {
    // Through the host: device -> host -> another device, or disk -> host -> device.
    Copy& staged = record.copies[host().index];
    if (!staged.allocated && !allocate(id, host(), state)) throw NoRoomUpstream{};
    if (staged.in_lru) {
      spaces_[host().index]->lru.erase(staged.lru_position);
      staged.in_lru = false;
    }
    ++staged.readers;
    try {
      copy_between(id, *source, host(), state);
      staged.valid = true;
      copy_between(id, host(), space, state);
    } catch (...) {
      --staged.readers;
      throw;
    }
    --staged.readers;
    if (!staged.pinned()) {
      Space& h = *spaces_[host().index];
      h.lru.push_back(id.index);
      staged.lru_position = std::prev(h.lru.end());
      staged.in_lru = true;
    }
  }
  record.copies[space.index].valid = true;
}

void MemoryManager::copy_between(ChunkId id, SpaceId from, SpaceId to,
                                 std::unique_lock<std::mutex>&) {
  Chunk& record = chunk(id);
  const Copy& source = record.copies[from.index];
  const Copy& target = record.copies[to.index];
  Space& src = *spaces_[from.index];
  Space& dst = *spaces_[to.index];
  auto* host_base = static_cast<std::byte*>(spaces_[host().index]->host.data());
  const auto start = std::chrono::steady_clock::now();
  if (src.stats.kind == SpaceKind::host && dst.stats.kind == SpaceKind::disk) {
    spill_->write(id.index, std::span(host_base + source.offset, record.bytes));
  } else if (src.stats.kind == SpaceKind::disk && dst.stats.kind == SpaceKind::host) {
    spill_->read(id.index, std::span(host_base + target.offset, record.bytes));
  } else if (src.stats.kind == SpaceKind::host && dst.stats.kind == SpaceKind::device) {
    dst.device->queue(device::QueueKind::host_to_device)
        .copy_to_device(dst.pool, target.offset, host_base + source.offset, record.bytes)
        .wait();
  } else if (src.stats.kind == SpaceKind::device && dst.stats.kind == SpaceKind::host) {
    src.device->queue(device::QueueKind::device_to_host)
        .copy_to_host(host_base + target.offset, src.pool, source.offset, record.bytes)
        .wait();
  } else {
    throw Error(fmt::format("chunk '{}': no direct copy from {} to {}", record.name, src.stats.name,
                            dst.stats.name));
  }
  bytes_moved_[{from.index, to.index}] += record.bytes;
  if (copy_observer_) {
    copy_observer_(
        CopyRecord{record.name, from, to, record.bytes, start, std::chrono::steady_clock::now()});
  }
}

const std::string& MemoryManager::space_name(SpaceId space) const {
  return spaces_.at(space.index)->stats.name;
}

void MemoryManager::set_copy_observer(std::function<void(const CopyRecord&)> observer) {
  std::lock_guard guard(state_lock_);
  copy_observer_ = std::move(observer);
}

void MemoryManager::drop_copy(ChunkId id, SpaceId space_id) {
  Chunk& record = chunk(id);
  Copy& copy = record.copies[space_id.index];
  Space& space = *spaces_[space_id.index];
  if (copy.in_lru) {
    space.lru.erase(copy.lru_position);
    copy.in_lru = false;
  }
  if (space.stats.kind == SpaceKind::disk) {
    if (copy.valid) spill_->remove(id.index);
  } else if (copy.allocated) {
    space.allocator->free(copy.offset, record.bytes);
    space.stats.used = space.allocator->used();
  }
  copy.allocated = false;
  copy.valid = false;
}

void MemoryManager::pin(ChunkId id, SpaceId space_id, ChunkAccess access) {
  Copy& copy = chunk(id).copies[space_id.index];
  Space& space = *spaces_[space_id.index];
  if (!copy.pinned()) space.pinned_bytes += chunk(id).bytes;
  if (copy.in_lru) {
    space.lru.erase(copy.lru_position);
    copy.in_lru = false;
  }
  if (access == ChunkAccess::read) {
    ++copy.readers;
  } else {
    copy.writer = true;
  }
}

void MemoryManager::unpin(ChunkId id, SpaceId space_id, ChunkAccess access) {
  Chunk& record = chunk(id);
  Copy& copy = record.copies[space_id.index];
  Space& space = *spaces_[space_id.index];
  if (access == ChunkAccess::read) {
    --copy.readers;
  } else {
    copy.writer = false;
  }
  if (copy.pinned()) return;
  space.pinned_bytes -= record.bytes;
  if (!copy.allocated) return;
  space.lru.push_back(id.index);  // most recently used
  copy.lru_position = std::prev(space.lru.end());
  copy.in_lru = true;
}

void MemoryManager::release(std::span<const ChunkRequest> requests, SpaceId space) {
  std::lock_guard guard(state_lock_);
  for (const ChunkRequest& request : requests) {
    Chunk& record = chunk(request.chunk);
    if (request.access != ChunkAccess::read) {
      // The written copy is the only valid one: drop the others and give back their memory.
      record.copies[space.index].valid = true;
      ++record.version;
      for (std::uint32_t s = 0; s < spaces_.size(); ++s) {
        if (s != space.index && !record.copies[s].pinned())
          drop_copy(request.chunk, SpaceId{s});
        else if (s != space.index)
          record.copies[s].valid = false;
      }
    }
    unpin(request.chunk, space, request.access);
  }
  ++release_epoch_;
  released_.notify_all();
}

void MemoryManager::read(ChunkId id, std::span<std::byte> out) {
  const ChunkRequest request{id, ChunkAccess::read};
  auto views = acquire(std::span(&request, 1), host());
  std::memcpy(out.data(), views.front().host,
              std::min<std::uint64_t>(out.size(), views.front().bytes));
  release(std::span(&request, 1), host());
}

ChunkView MemoryManager::view_of(ChunkId id, SpaceId space_id) {
  Chunk& record = chunk(id);
  Space& space = *spaces_[space_id.index];
  ChunkView view;
  view.chunk = id;
  view.space = space_id;
  view.bytes = record.bytes;
  view.offset = record.copies[space_id.index].offset;
  if (space.stats.kind == SpaceKind::host) {
    view.host = static_cast<std::byte*>(space.host.data()) + view.offset;
  } else {
    view.buffer = &space.pool;
  }
  return view;
}

void MemoryManager::out_of_memory(std::span<const ChunkRequest> requests, SpaceId space_id) const {
  const Space& space = *spaces_[space_id.index];
  std::uint64_t requested = 0;
  std::string names;
  for (const ChunkRequest& request : requests) {
    const Chunk& record = chunk(request.chunk);
    requested += record.bytes;
    if (names.size() < 200)
      names += fmt::format("{}'{}' ({})", names.empty() ? "" : ", ", record.name,
                           format_bytes(record.bytes));
  }
  std::string holders;
  std::size_t listed = 0;
  for (const auto& [index, record] : chunks_) {
    const Copy& copy = record->copies[space_id.index];
    if (!copy.allocated || listed == 8) continue;
    holders += fmt::format("\n  '{}' {} ({})", record->name, format_bytes(record->bytes),
                           copy.pinned() ? "pinned by a running task" : "unpinned");
    ++listed;
  }
  throw OutOfMemory(fmt::format(
      "out of memory in {} ({} space): a request for {} in {} chunk(s) [{}] does not fit its "
      "capacity of {} ({} free in the largest piece); no other task holds memory there{}{}",
      space.stats.name, kind_name(space.stats.kind), format_bytes(requested), requests.size(),
      names, format_bytes(space.stats.capacity), format_bytes(space.allocator->largest_free()),
      holders.empty() ? "" : "; allocated now:", holders));
}

MemoryStats MemoryManager::stats() const {
  std::lock_guard guard(state_lock_);
  MemoryStats stats;
  for (const auto& space : spaces_)
    stats.spaces.push_back(space->stats);
  const SpillStats spill = spill_->stats();
  stats.spaces[disk().index].used = spill.bytes_on_disk;
  stats.bytes_moved = bytes_moved_;
  return stats;
}

std::string MemoryStats::format() const {
  std::string text = fmt::format("{:<24} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}\n", "space",
                                 "capacity", "used", "peak", "hits", "misses", "evictions");
  for (const auto& s : spaces) {
    text += fmt::format("{:<24} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}\n", s.name.substr(0, 24),
                        s.capacity == 0 ? std::string("-") : format_bytes(s.capacity),
                        format_bytes(s.used), format_bytes(s.peak), s.hits, s.misses, s.evictions);
  }
  for (const auto& [pair, bytes] : bytes_moved) {
    text += fmt::format("moved {} -> {}: {}\n", spaces[pair.first].name, spaces[pair.second].name,
                        format_bytes(bytes));
  }
  return text;
}

}  // namespace strata::memory
