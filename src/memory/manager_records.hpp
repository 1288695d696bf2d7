#pragma once
// The memory manager's private records: copies, chunks, spaces, acquisitions, copies in flight,
// and the work deferred until the manager's lock is released.

#include <chrono>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eviction_order.hpp"
#include "strata/device/event.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::memory {

// One chunk's copy in one space.
struct MemoryManager::Copy {
  bool allocated = false;  // host/device: holds a range of the pool; disk: has a spill file
  bool valid = false;      // holds the current contents, or will once `fill` completes
  std::uint64_t offset = 0;
  std::uint64_t spill_key = 0;  // disk: the file's key (one per disk copy, never reused)
  unsigned readers = 0;
  unsigned writers = 0;  // several when queue-ordered writers follow one another (publish())
  bool in_lru = false;   // unpinned and allocated: in its space's eviction order
  EvictionOrder::Position lru_position;
  std::uint64_t last_used = 0;       // the eviction order's stamp when it was last unpinned
  unsigned busy = 0;                 // copies in flight out of it or into it
  device::Event fill;                // the last copy into it
  std::vector<device::Event> reads;  // copies out of it (done ones are pruned now and then)
  bool evicting = false;             // being moved one tier up; freed when that completes
  bool drop_when_idle = false;       // dropped while busy: freed once nothing is copying it
  std::uint64_t generation = 0;      // counts refills and frees: "still the same contents?"
  bool pinned() const { return readers > 0 || writers > 0; }
};

struct MemoryManager::Chunk {
  std::string name;
  std::uint64_t bytes = 0;  // the capacity of a late-sized chunk
  bool late_sized = false;
  std::optional<std::uint64_t> size;  // late-sized: set by its last writer
  std::uint64_t version = 0;
  std::vector<Copy> copies;  // per space
  bool destroyed = false;    // destroyed while copies were in flight: the last one erases it
  // Declared tasks that will use it (expect_use), ascending: added mostly at the back, ended
  // mostly near the front (a chunk that every superblock of a launch reads has thousands).
  std::deque<std::uint64_t> uses;
};

// A memory space: its pool and the order in which its unpinned copies are evicted.
struct MemoryManager::Space {
  SpaceStats stats;
  device::Device* device = nullptr;
  device::DeviceBuffer pool;                  // device spaces
  device::HostBuffer host;                    // host space
  std::unique_ptr<RangeAllocator> allocator;  // host and device spaces
  EvictionOrder lru;                          // begin: the first to evict
  std::uint64_t pinned_bytes = 0;
  std::uint64_t evicting_bytes = 0;  // copies on their way one tier up
  // When the last upload into / download out of this device ended (start times of copies).
  std::chrono::steady_clock::time_point upload_end, download_end;
};

// One acquire_async() call, from planning to completion.
struct MemoryManager::Acquisition {
  std::vector<ChunkRequest> requests;
  SpaceId space;
  AcquireCallback done;
  std::uint64_t tag = 0;
  std::vector<device::Event> moves;  // evictions started for it: their errors are its errors
  bool moved_own_chunks = false;     // its own copies made way once (fragmentation)
  std::vector<device::Event> ready;  // once planned: what the data waits for
  std::vector<ChunkView> views;
};

// One copy in flight.
struct MemoryManager::Transfer {
  ChunkId chunk;
  SpaceId from;
  SpaceId to;
  std::uint64_t bytes = 0;
  std::uint64_t tag = 0;
  bool eviction = false;
  std::uint64_t version = 0;            // the chunk's version when it started
  std::uint64_t source_generation = 0;  // the source copy's generation when it started
  std::string name;
  device::Event event;
  std::chrono::steady_clock::time_point issued;
  std::chrono::steady_clock::time_point io_started;  // disk transfers: when the job began
};

// Work collected under the manager's lock and run after it is released (in order), also when
// an exception leaves the locked scope.
class MemoryManager::Actions {
 public:
  Actions() = default;
  Actions(const Actions&) = delete;
  Actions& operator=(const Actions&) = delete;
  ~Actions() { run(); }
  void add(std::function<void()> action) { actions_.push_back(std::move(action)); }
  // Runs the actions, and those that other Actions on this thread add while they run.
  void run() noexcept;

 private:
  std::vector<std::function<void()>> actions_;
};

}  // namespace strata::memory
