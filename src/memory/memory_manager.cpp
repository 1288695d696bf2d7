#include "strata/memory/memory_manager.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
#include <limits>

#include "manager_records.hpp"
#include "strata/base/log.hpp"
#include "strata/base/units.hpp"
#include "strata/device/errors.hpp"
#include "strata/memory/io_threads.hpp"

namespace strata::memory {

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
  device::HostBuffer buffer = device::HostBuffer::mapped(bytes);
  if (buffer.data() == nullptr)
    throw OutOfMemory(fmt::format("cannot allocate the {} host memory pool", format_bytes(bytes)));
  return buffer;
}

}  // namespace

MemoryOptions MemoryOptions::from(const Config& config) {
  const MemorySettings& settings = config.section<MemorySettings>();
  MemoryOptions options;
  options.host_capacity = settings.host_capacity;
  options.device_capacity = settings.device_capacity;
  options.spill_root = settings.spill_dir;
  options.spill_capacity = settings.spill_capacity;
  options.cpu_device_in_host_memory = settings.cpu_device_memory == "host";
  return options;
}

namespace {

// The configured spill root, else $TMPDIR, else /tmp.
std::string spill_root_for(const MemoryOptions& options) {
  if (!options.spill_root.empty()) return options.spill_root;
  const char* tmpdir = std::getenv("TMPDIR");  // NOLINT(concurrency-mt-unsafe): read only
  return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
}

// The default pool of a device: 90% of the memory free when the node starts (other processes,
// such as ranks or tests sharing the GPU, may hold some), at most what one buffer can hold. When
// another process takes memory between the asking and the allocation, the pool is sized again
// from what is left (three tries), so processes starting together on one GPU each get a share.
device::DeviceBuffer default_device_pool(device::Device& dev, std::uint64_t& capacity) {
  const device::DeviceInfo& info = dev.info();
  for (int attempt = 1;; ++attempt) {
    capacity = std::min(info.memory_bytes, dev.free_memory_bytes()) / 10 * 9;
    if (info.max_allocation_bytes != 0) capacity = std::min(capacity, info.max_allocation_bytes);
    try {
      return dev.allocate(capacity);
    } catch (const device::DeviceError&) {
      if (attempt == 3) throw;
    }
  }
}

}  // namespace

void MemoryManager::Actions::run() noexcept {
  // An action may complete events at once, whose callbacks plan more work and run their own
  // actions: on this thread those join the outermost run's queue instead of nesting, so a long
  // chain of copies that complete at once cannot overflow the stack.
  thread_local std::deque<std::function<void()>>* outer = nullptr;
  if (outer != nullptr) {
    for (auto& action : actions_)
      outer->push_back(std::move(action));
    actions_.clear();
    return;
  }
  std::deque<std::function<void()>> queue(std::make_move_iterator(actions_.begin()),
                                          std::make_move_iterator(actions_.end()));
  actions_.clear();
  outer = &queue;
  while (!queue.empty()) {
    const std::function<void()> action = std::move(queue.front());
    queue.pop_front();
    try {
      action();
    } catch (const std::exception& e) {
      log().error("memory manager: a deferred action failed: {}", e.what());
    } catch (...) {
      log().error("memory manager: a deferred action failed");
    }
  }
  outer = nullptr;
}

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
  // Pinned by the first device whose memory is not host memory (a GPU), so its copies run at
  // full speed: CUDA stages copies from pageable memory through buffers of its own and may wait
  // for the stream first. The CPU device, listed first when it is used, pins nothing.
  const auto pinning = std::find_if(devices.begin(), devices.end(),
                                    [](device::Device* dev) { return !dev->info().host_memory; });
  host->host = devices.empty() ? aligned_host_buffer(options.host_capacity)
                               : (pinning != devices.end() ? *pinning : devices.front())
                                     ->allocate_host(options.host_capacity);
  host->allocator = std::make_unique<RangeAllocator>(options.host_capacity, 256);
  if (options.cpu_device_in_host_memory) {
    // The host space is the CPU device's memory too: its chunks there are its kernel arguments.
    for (device::Device* dev : devices) {
      if (dev->info().backend != device::BackendKind::cpu || host->pool) continue;
      host->pool = dev->use_host_memory(host->host.data(), options.host_capacity);
      if (host->pool) device_spaces_[dev] = SpaceId{0};
    }
  }
  spaces_.push_back(std::move(host));

  spill_ = std::make_unique<SpillStore>(spill_root_for(options), options.spill_capacity);
  auto disk = std::make_unique<Space>();
  disk->stats =
      SpaceStats{"disk (" + spill_->directory() + ")", SpaceKind::disk, options.spill_capacity};
  spaces_.push_back(std::move(disk));

  for (device::Device* dev : devices) {
    if (device_spaces_.contains(dev)) continue;  // in host memory
    // The pool: no device allocation on the hot path.
    std::uint64_t capacity = options.device_capacity;
    device::DeviceBuffer pool =
        capacity != 0 ? dev->allocate(capacity) : default_device_pool(*dev, capacity);
    auto space = std::make_unique<Space>();
    space->stats = SpaceStats{dev->info().id, SpaceKind::device, capacity};
    space->device = dev;
    space->pool = std::move(pool);
    // Chunks start where the device takes arrays best (OpenCL: its base-address alignment).
    space->allocator = std::make_unique<RangeAllocator>(
        capacity, std::max<std::uint64_t>(256, dev->info().buffer_offset_alignment));
    device_spaces_[dev] = SpaceId{static_cast<std::uint32_t>(spaces_.size())};
    spaces_.push_back(std::move(space));
  }
  io_threads_ = std::make_unique<IoThreads>(options.io_threads);
}

MemoryManager::~MemoryManager() {
  drain();
  std::list<std::shared_ptr<Acquisition>> abandoned;
  {
    std::lock_guard guard(state_lock_);
    abandoned.swap(waiting_);
  }
  for (const auto& acquisition : abandoned) {
    acquisition->done({}, std::make_exception_ptr(Error(
                              "the memory manager was destroyed while an acquisition waited")));
  }
  io_threads_.reset();
}

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
  Actions later;
  std::lock_guard state(state_lock_);
  Chunk& record = chunk(id);
  for (const Copy& copy : record.copies) {
    if (copy.pinned()) {
      throw Error(fmt::format("chunk '{}' is destroyed while a task holds it", record.name));
    }
  }
  // Never waits: a copy that an eviction or prefetch still reads or writes is freed when that
  // copy ends, and the last copy to end erases the record (callers may be queue threads whose
  // own copies are the ones in flight).
  for (std::uint32_t s = 0; s < spaces_.size(); ++s)
    drop_copy(id, SpaceId{s}, later);
  if (std::any_of(record.copies.begin(), record.copies.end(),
                  [](const Copy& copy) { return copy.busy > 0; })) {
    record.destroyed = true;
  } else {
    chunks_.erase(id.index);
  }
  retry_waiting(later);
}

std::uint64_t MemoryManager::chunk_bytes(ChunkId id) const {
  std::lock_guard guard(state_lock_);
  return chunk(id).bytes;
}

void MemoryManager::make_late_sized(ChunkId id) {
  std::lock_guard guard(state_lock_);
  Chunk& record = chunk(id);
  record.late_sized = true;
  record.size.reset();
}

void MemoryManager::set_size(ChunkId id, std::uint64_t bytes) {
  std::lock_guard guard(state_lock_);
  Chunk& record = chunk(id);
  if (!record.late_sized) {
    throw Error(
        fmt::format("chunk '{}' has a fixed size of {} B; only a late-sized chunk gets "
                    "its size set",
                    record.name, record.bytes));
  }
  if (bytes > record.bytes) {
    throw Error(fmt::format("chunk '{}' is set to {} B, more than its capacity of {} B",
                            record.name, bytes, record.bytes));
  }
  record.size = bytes;
}

std::optional<std::uint64_t> MemoryManager::chunk_size(ChunkId id) const {
  std::lock_guard guard(state_lock_);
  const Chunk& record = chunk(id);
  if (!record.late_sized) return record.bytes;
  return record.size;
}

std::vector<SpaceId> MemoryManager::valid_copies(ChunkId id) const {
  std::lock_guard guard(state_lock_);
  const Chunk& record = chunk(id);
  std::vector<SpaceId> spaces;
  for (std::uint32_t s = 0; s < record.copies.size(); ++s) {
    if (record.copies[s].valid) spaces.push_back(SpaceId{s});
  }
  return spaces;
}

const std::string& MemoryManager::chunk_name(ChunkId id) const {
  std::lock_guard guard(state_lock_);
  return chunk(id).name;
}

std::vector<ChunkView> MemoryManager::acquire(std::span<const ChunkRequest> requests,
                                              SpaceId space) {
  auto result = std::make_shared<std::promise<std::vector<ChunkView>>>();
  auto future = result->get_future();
  acquire_async(requests, space, [result](std::vector<ChunkView> views, std::exception_ptr error) {
    if (error) {
      result->set_exception(error);
    } else {
      result->set_value(std::move(views));
    }
  });
  return future.get();
}

void MemoryManager::release(std::span<const ChunkRequest> requests, SpaceId space) {
  Actions later;
  std::lock_guard guard(state_lock_);
  for (const ChunkRequest& request : requests) {
    if (request.access != ChunkAccess::read) mark_written(request.chunk, space, later);
    unpin(request.chunk, space, request.access);
  }
  retry_waiting(later);
}

void MemoryManager::publish(std::span<const ChunkRequest> requests, SpaceId space) {
  Actions later;
  std::lock_guard guard(state_lock_);
  for (const ChunkRequest& request : requests) {
    if (request.access != ChunkAccess::read) mark_written(request.chunk, space, later);
  }
  retry_waiting(later);
}

void MemoryManager::mark_written(ChunkId id, SpaceId space, Actions& later) {
  // The written copy is the only valid one: drop the others and give back their memory.
  Chunk& record = chunk(id);
  record.copies[space.index].valid = true;
  ++record.version;
  for (std::uint32_t s = 0; s < spaces_.size(); ++s) {
    if (s != space.index && !record.copies[s].pinned())
      drop_copy(id, SpaceId{s}, later);
    else if (s != space.index)
      record.copies[s].valid = false;
  }
}

void MemoryManager::read(ChunkId id, std::span<std::byte> out) {
  const ChunkRequest request{id, ChunkAccess::read};
  auto views = acquire(std::span(&request, 1), host());
  std::memcpy(out.data(), views.front().host,
              std::min<std::uint64_t>(out.size(), views.front().bytes));
  release(std::span(&request, 1), host());
}

const std::string& MemoryManager::space_name(SpaceId space) const {
  return spaces_.at(space.index)->stats.name;
}

void MemoryManager::set_copy_observer(std::function<void(const CopyRecord&)> observer) {
  std::lock_guard guard(state_lock_);
  copy_observer_ = std::move(observer);
}

void MemoryManager::pin(ChunkId id, SpaceId space_id, ChunkAccess access) {
  Chunk& record = chunk(id);
  Copy& copy = record.copies[space_id.index];
  Space& space = *spaces_[space_id.index];
  if (!copy.pinned()) space.pinned_bytes += record.bytes;
  if (copy.in_lru) {
    space.lru.erase(copy.lru_position);
    copy.in_lru = false;
  }
  if (access == ChunkAccess::read) {
    ++copy.readers;
  } else {
    ++copy.writers;
  }
}

void MemoryManager::unpin(ChunkId id, SpaceId space_id, ChunkAccess access) {
  Chunk& record = chunk(id);
  Copy& copy = record.copies[space_id.index];
  Space& space = *spaces_[space_id.index];
  if (access == ChunkAccess::read) {
    --copy.readers;
  } else {
    --copy.writers;
  }
  if (copy.pinned()) return;
  space.pinned_bytes -= record.bytes;
  if (copy.allocated && !copy.evicting) lru_push(id, space_id);  // most recently used
}

void MemoryManager::lru_push(ChunkId id, SpaceId space_id) {
  Chunk& record = chunk(id);
  Copy& copy = record.copies[space_id.index];
  EvictionOrder& order = spaces_[space_id.index]->lru;
  copy.last_used = order.stamp();
  copy.lru_position = copy.in_lru ? order.move(copy.lru_position, copy.last_used, next_use(record))
                                  : order.insert(id.index, copy.last_used, next_use(record));
  copy.in_lru = true;
}

std::optional<std::uint64_t> MemoryManager::next_use(const Chunk& record) {
  if (record.uses.empty()) return std::nullopt;
  return record.uses.front();
}

void MemoryManager::reorder(Chunk& record) {
  for (std::size_t s = 0; s < record.copies.size(); ++s) {
    Copy& copy = record.copies[s];
    if (!copy.in_lru) continue;
    copy.lru_position = spaces_[s]->lru.move(copy.lru_position, copy.last_used, next_use(record));
  }
}

void MemoryManager::expect_use(std::span<const ChunkId> chunks, std::uint64_t order) {
  std::lock_guard guard(state_lock_);
  for (const ChunkId id : chunks) {
    auto found = chunks_.find(id.index);
    if (found == chunks_.end() || found->second->destroyed) continue;
    Chunk& record = *found->second;
    const bool first = record.uses.empty() || order < record.uses.front();
    // Declared in submission order, so nearly always at the end.
    if (record.uses.empty() || record.uses.back() <= order) {
      record.uses.push_back(order);
    } else {
      record.uses.insert(std::upper_bound(record.uses.begin(), record.uses.end(), order), order);
    }
    if (first) reorder(record);
  }
}

void MemoryManager::end_use(std::span<const ChunkId> chunks, std::uint64_t order) {
  std::lock_guard guard(state_lock_);
  for (const ChunkId id : chunks) {
    auto found = chunks_.find(id.index);
    if (found == chunks_.end()) continue;
    Chunk& record = *found->second;
    const auto use = std::lower_bound(record.uses.begin(), record.uses.end(), order);
    if (use == record.uses.end() || *use != order) continue;  // never declared
    const bool first = use == record.uses.begin();
    record.uses.erase(use);
    if (first) reorder(record);
  }
}

ChunkView MemoryManager::view_of(ChunkId id, SpaceId space_id, ChunkAccess access) {
  Chunk& record = chunk(id);
  Space& space = *spaces_[space_id.index];
  ChunkView view;
  view.chunk = id;
  view.space = space_id;
  view.bytes = record.bytes;
  if (record.late_sized) {
    // A writer starts a new size (it sees the capacity); readers see the last writer's size.
    if (access == ChunkAccess::write) {
      record.size.reset();
    } else if (record.size) {
      view.bytes = *record.size;
    }
  }
  view.offset = record.copies[space_id.index].offset;
  if (space.stats.kind == SpaceKind::host) {
    view.host = static_cast<std::byte*>(space.host.data()) + view.offset;
    if (space.pool) view.buffer = &space.pool;  // the CPU device's memory too
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
  // The eight oldest chunks allocated there.
  std::vector<std::uint64_t> allocated;
  for (const auto& [index, record] : chunks_) {
    if (record->copies[space_id.index].allocated) allocated.push_back(index);
  }
  std::sort(allocated.begin(), allocated.end());
  allocated.resize(std::min<std::size_t>(allocated.size(), 8));
  std::string holders;
  for (const std::uint64_t index : allocated) {
    const Chunk& record = *chunks_.at(index);
    holders += fmt::format(
        "\n  '{}' {} ({})", record.name, format_bytes(record.bytes),
        record.copies[space_id.index].pinned() ? "pinned by a running task" : "unpinned");
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
  // The disk space's use is the spill store's: its files come and go on the I/O threads.
  const SpillStats spill = spill_->stats();
  stats.spaces[disk().index].used = spill.bytes_on_disk;
  stats.spaces[disk().index].peak = spill.peak_bytes_on_disk;
  stats.bytes_moved = bytes_moved_;
  return stats;
}

std::uint64_t MemoryManager::free_bytes(SpaceId space) const {
  std::lock_guard guard(state_lock_);
  const SpaceStats& stats = spaces_.at(space.index)->stats;
  if (stats.capacity == 0) return std::numeric_limits<std::uint64_t>::max();
  return stats.capacity > stats.used ? stats.capacity - stats.used : 0;
}

std::uint64_t MemoryManager::capacity(SpaceId space) const {
  std::lock_guard guard(state_lock_);
  const std::uint64_t bytes = spaces_.at(space.index)->stats.capacity;
  return bytes == 0 ? std::numeric_limits<std::uint64_t>::max() : bytes;
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
