#pragma once
// The memory manager: chunks with valid copies across memory spaces (devices, host, disk),
// readers shared and writers exclusive, all-or-none acquisition for a task, least-recently-used
// eviction one tier up (device -> host -> disk), and statistics. Every front end uses it.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/device/device.hpp"
#include "strata/memory/range_allocator.hpp"
#include "strata/memory/spill_store.hpp"

namespace strata::memory {

// Index of a memory space of one manager.
struct SpaceId {
  std::uint32_t index = 0;
  friend bool operator==(SpaceId, SpaceId) = default;
};

enum class SpaceKind : std::uint8_t { device, host, disk };

// Index of a chunk of one manager.
struct ChunkId {
  std::uint64_t index = 0;
  friend bool operator==(ChunkId, ChunkId) = default;
};

// What a task does with a chunk.
enum class ChunkAccess : std::uint8_t { read, write, read_write };

// Capacities of the spaces; below the physical sizes to emulate small machines in tests.
struct MemoryOptions {
  std::uint64_t host_capacity = 1ull << 30;
  std::uint64_t device_capacity = 0;  // per device; 0: 90% of the device's memory
  std::string spill_root;             // where the spill directory goes; empty: $TMPDIR or /tmp
  std::uint64_t spill_capacity = 0;   // 0: bounded by the file system only
};

// "Out of memory" when nothing else holds memory in the space: names the space, the request,
// the capacity and what holds memory.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

// Where an acquired chunk lies: host memory (`host`) or a device buffer and offset.
struct ChunkView {
  ChunkId chunk;
  SpaceId space;
  std::uint64_t bytes = 0;
  void* host = nullptr;                          // host space
  const device::DeviceBuffer* buffer = nullptr;  // device spaces: the pool buffer
  std::uint64_t offset = 0;                      // ... and the chunk's offset in it
  // The chunk as a kernel argument (device spaces) of element type `type`.
  device::KernelArg argument(device::ElementType type) const;
};

// One chunk a task needs, and how.
struct ChunkRequest {
  ChunkId chunk;
  ChunkAccess access = ChunkAccess::read;
};

// Counters of one space.
struct SpaceStats {
  std::string name;
  SpaceKind kind = SpaceKind::host;
  std::uint64_t capacity = 0;
  std::uint64_t used = 0;
  std::uint64_t peak = 0;
  std::uint64_t hits = 0;       // acquisitions that found a valid copy here
  std::uint64_t misses = 0;     // ... that had to fetch (or allocate for a write)
  std::uint64_t evictions = 0;  // copies moved out to make room
};

// Everything the manager counts: per space, and bytes moved per pair of spaces.
struct MemoryStats {
  std::vector<SpaceStats> spaces;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> bytes_moved;  // (from, to)
  std::string format() const;
};

// One copy the manager made: which chunk, between which spaces, when.
struct CopyRecord {
  std::string_view chunk;
  SpaceId from;
  SpaceId to;
  std::uint64_t bytes = 0;
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;
};

class MemoryManager {
 public:
  // Host and disk spaces, and one space per device (each with a pool of its capacity).
  MemoryManager(const MemoryOptions& options, std::span<device::Device* const> devices);
  ~MemoryManager();
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;

  SpaceId host() const { return SpaceId{0}; }
  SpaceId disk() const { return SpaceId{1}; }
  SpaceId space_of(const device::Device& device) const;
  std::size_t space_count() const;

  // A chunk of `bytes`; with `initial` data (exactly `bytes`) its first valid copy is on the
  // host, without it the chunk must be written before it is read.
  ChunkId create_chunk(std::string name, std::uint64_t bytes,
                       std::span<const std::byte> initial = {});
  // Frees every copy of the chunk; it must not be acquired.
  void destroy_chunk(ChunkId chunk);
  std::uint64_t chunk_bytes(ChunkId chunk) const;
  const std::string& chunk_name(ChunkId chunk) const;

  // Makes every requested chunk present in `space` (valid for reads), pinned until release():
  // all or none. Waits while other acquisitions hold the memory it needs; throws OutOfMemory
  // when nothing else holds memory there and it still does not fit.
  std::vector<ChunkView> acquire(std::span<const ChunkRequest> requests, SpaceId space);
  // Unpins; a written chunk's copy in `space` becomes its only valid copy.
  void release(std::span<const ChunkRequest> requests, SpaceId space);

  // Copies the chunk's current contents out to host memory (acquires it on the host).
  void read(ChunkId chunk, std::span<std::byte> out);

  MemoryStats stats() const;
  const std::string& space_name(SpaceId space) const;
  // Called after every copy between spaces (on the acquiring thread, under the manager's lock:
  // keep it short), e.g. to put copies into a trace.
  void set_copy_observer(std::function<void(const CopyRecord&)> observer);

 private:
  struct Space;
  struct Chunk;
  struct Copy;

  Chunk& chunk(ChunkId id);
  const Chunk& chunk(ChunkId id) const;
  // Tries to pin every request in `space`, fetching as needed; false (with nothing kept) when
  // memory is held by others. Caller holds state_lock_.
  bool try_acquire(std::span<const ChunkRequest> requests, SpaceId space,
                   std::vector<ChunkView>& views, std::unique_lock<std::mutex>& state);
  bool make_room(SpaceId space, std::unique_lock<std::mutex>& state);
  bool allocate(ChunkId id, SpaceId space, std::unique_lock<std::mutex>& state);
  void evict(ChunkId id, SpaceId space, std::unique_lock<std::mutex>& state);
  void fetch(ChunkId id, SpaceId space, std::unique_lock<std::mutex>& state);
  void copy_between(ChunkId id, SpaceId from, SpaceId to, std::unique_lock<std::mutex>& state);
  void drop_copy(ChunkId id, SpaceId space);
  void pin(ChunkId id, SpaceId space, ChunkAccess access);
  void unpin(ChunkId id, SpaceId space, ChunkAccess access);
  ChunkView view_of(ChunkId id, SpaceId space);
  [[noreturn]] void out_of_memory(std::span<const ChunkRequest> requests, SpaceId space) const;

  std::vector<std::unique_ptr<Space>> spaces_;
  std::unique_ptr<SpillStore> spill_;
  std::map<const device::Device*, SpaceId> device_spaces_;
  std::map<std::uint64_t, std::unique_ptr<Chunk>> chunks_;
  std::uint64_t next_chunk_ = 0;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> bytes_moved_;
  std::function<void(const CopyRecord&)> copy_observer_;

  std::mutex staging_lock_;  // one acquisition plans at a time (as one memory manager thread)
  mutable std::mutex state_lock_;
  std::condition_variable released_;
  std::uint64_t release_epoch_ = 0;
};

}  // namespace strata::memory
