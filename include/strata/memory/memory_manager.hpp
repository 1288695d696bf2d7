#pragma once
// The memory manager: chunks with valid copies across memory spaces (devices, host, disk),
// readers shared and writers exclusive, all-or-none acquisition for a task, eviction one tier up
// (device -> host -> disk) by next declared use, then least recently used, and statistics. Every
// front end uses it. Copies run asynchronously: host <-> device on the devices' copy queues, disk
// <-> host as spill I/O jobs; an acquisition completes when the copies it needs have.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "strata/base/adaptive_mutex.hpp"
#include "strata/base/config.hpp"
#include "strata/base/error.hpp"
#include "strata/device/device.hpp"
#include "strata/memory/range_allocator.hpp"
#include "strata/memory/settings.hpp"
#include "strata/memory/spill_store.hpp"

namespace strata::memory {

class IoThreads;

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
  // The memory section of `config` (MemorySettings).
  static MemoryOptions from(const Config& config);

  std::uint64_t host_capacity = 1ull << 30;
  std::uint64_t device_capacity = 0;  // per device; 0: 90% of its free memory, at most one buffer
  std::string spill_root;             // where the spill directory goes; empty: $TMPDIR or /tmp
  std::uint64_t spill_capacity = 0;   // 0: bounded by the file system only
  unsigned io_threads = 2;  // the manager's own spill I/O threads, used until set_io_executor()
  // The CPU device's chunks live in the host space (its kernels use host memory where it lies:
  // nothing is copied between the host and it); false: it has a space of its own like any
  // device (e.g. to stand in for a GPU with a memory of its own).
  bool cpu_device_in_host_memory = false;
};

// Runs a job of spill I/O (`what`: "spill write", "spill read" or "spill remove") somewhere
// other than the calling thread, e.g. on the runtime's I/O executor. Must not block, and must run
// every job it takes.
using IoExecutor = std::function<void(const char* what, std::function<void()> job)>;

// "Out of memory" when nothing else holds memory in the space: names the space, the request,
// the capacity and what holds memory.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

// Where an acquired chunk lies: host memory (`host`) or a device buffer and offset (both in the
// host space when the CPU device works in host memory).
struct ChunkView {
  ChunkId chunk;
  SpaceId space;
  std::uint64_t bytes = 0;
  void* host = nullptr;                          // host space
  const device::DeviceBuffer* buffer = nullptr;  // device spaces: the pool buffer; host: see above
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
  std::uint64_t evictions = 0;  // copies with current contents moved out or dropped for room
};

// Everything the manager counts: per space, and bytes moved per pair of spaces.
struct MemoryStats {
  std::vector<SpaceStats> spaces;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> bytes_moved;  // (from, to)
  std::string format() const;
};

// One copy the manager made: which chunk, between which spaces, when, and for whom.
struct CopyRecord {
  std::string_view chunk;
  SpaceId from;
  SpaceId to;
  std::uint64_t bytes = 0;
  // From when it could start (issued, and its queue done with the copies before it) to its end.
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;
  std::uint64_t tag = 0;      // the tag of the acquisition that made it (see acquire_async)
  std::uint64_t to_used = 0;  // bytes in use in `to` after it
};

// How an asynchronous acquisition ends: the views (in request order) or the error.
using AcquireCallback = std::function<void(std::vector<ChunkView> views, std::exception_ptr error)>;

class MemoryManager {
 public:
  // Host and disk spaces, and one space per device (each with a pool of its capacity).
  MemoryManager(const MemoryOptions& options, std::span<device::Device* const> devices);
  ~MemoryManager();
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;

  SpaceId host() const { return SpaceId{0}; }
  SpaceId disk() const { return SpaceId{1}; }
  // The device's space: its own, or host() for a CPU device working in host memory.
  SpaceId space_of(const device::Device& device) const;
  std::size_t space_count() const;

  // A chunk of `bytes`; with `initial` data (exactly `bytes`) its first valid copy is on the
  // host, without it the chunk must be written before it is read.
  ChunkId create_chunk(std::string name, std::uint64_t bytes,
                       std::span<const std::byte> initial = {});
  // Frees every copy of the chunk; it must not be acquired. Never waits: copies still in flight
  // on it (evictions, prefetches) finish first, and their memory is freed when they end.
  void destroy_chunk(ChunkId chunk);
  std::uint64_t chunk_bytes(ChunkId chunk) const;

  // Late sizes: a chunk whose size is known only when the task that writes it ends (a filter's
  // output). It keeps `bytes` (its capacity) in every space; the writer sets its size with
  // set_size() before it ends. A write acquisition forgets the size (its view shows the
  // capacity); acquiring the chunk to read while its size is unknown fails, naming it; views for
  // reading show the size, and copies between host and device move only that many bytes.
  // A late-sized chunk starts with no size.
  void make_late_sized(ChunkId chunk);
  // Throws naming the chunk if it is not late-sized or `bytes` exceeds its capacity.
  void set_size(ChunkId chunk, std::uint64_t bytes);
  // The chunk's size: its bytes, or a late-sized chunk's size (nullopt while unknown).
  std::optional<std::uint64_t> chunk_size(ChunkId chunk) const;
  // The spaces that hold the chunk's current contents (or will, once a copy in flight lands), in
  // space order: host, disk, then devices. For planning near the data; empty before the first
  // write of a chunk created without data.
  std::vector<SpaceId> valid_copies(ChunkId chunk) const;
  const std::string& chunk_name(ChunkId chunk) const;

  // Makes every requested chunk present in `space` (valid for reads), pinned until release():
  // all or none. Reserves the memory (evicting copies one tier up, see expect_use()), issues
  // the copies on the copy queues and the I/O executor and returns; `done` runs, on whichever
  // thread finished the last of them (or on this one, if nothing had to move), once the data is
  // there. A chunk already being filled in `space` is waited for, not copied twice. While other
  // acquisitions hold the memory it needs it waits for them without blocking anyone; when
  // nothing else holds memory there and it still does not fit, `done` gets OutOfMemory. On an
  // error nothing stays pinned. `tag` is passed on to the copy observer (e.g. which executor).
  void acquire_async(std::span<const ChunkRequest> requests, SpaceId space, AcquireCallback done,
                     std::uint64_t tag = 0);
  // acquire_async(), waiting for it; throws its error. Not from a copy queue's or I/O thread.
  std::vector<ChunkView> acquire(std::span<const ChunkRequest> requests, SpaceId space);
  // Unpins; a written chunk's copy in `space` becomes its only valid copy.
  void release(std::span<const ChunkRequest> requests, SpaceId space);
  // Without unpinning: a written chunk's copy in `space` becomes its only valid copy now, for a
  // writer whose work is queued in order ahead of the next acquisitions there (release() later).
  void publish(std::span<const ChunkRequest> requests, SpaceId space);

  // The tasks submitted so far, for eviction: the task numbered `order` (numbers increase in
  // submission order) will use `chunks`; end_use() once it finished or will not run. A space
  // evicts first the copies that no such task uses (least recently used first), then those
  // whose next use comes last. Unknown chunks and orders are ignored.
  void expect_use(std::span<const ChunkId> chunks, std::uint64_t order);
  void end_use(std::span<const ChunkId> chunks, std::uint64_t order);

  // Copies the chunk's current contents out to host memory (acquires it on the host).
  void read(ChunkId chunk, std::span<std::byte> out);

  MemoryStats stats() const;
  // Bytes of `space` not in use now (capacity minus used; unbounded spaces: the largest value).
  // Cached copies that could be evicted count as used. Cheaper than stats(): for load reports.
  std::uint64_t free_bytes(SpaceId space) const;
  // The space's capacity (unbounded spaces: the largest value).
  std::uint64_t capacity(SpaceId space) const;
  const std::string& space_name(SpaceId space) const;
  // Called after every copy between spaces (on the thread that finished it, under the manager's
  // lock: keep it short and do not call the manager), e.g. to put copies into a trace.
  void set_copy_observer(std::function<void(const CopyRecord&)> observer);
  // Where spill I/O runs from now on; nullptr: the manager's own I/O threads.
  void set_io_executor(IoExecutor executor);
  // Waits until no copy, spill I/O or file removal is in flight.
  void drain();

 private:
  struct Space;
  struct Chunk;
  struct Copy;
  struct Acquisition;
  struct Transfer;
  class Actions;
  enum class Plan : std::uint8_t { done, wait };

  // Everything below runs with state_lock_ held; what must happen after it is released (event
  // callbacks, I/O jobs, completions) is collected in `later`.
  Chunk& chunk(ChunkId id);
  const Chunk& chunk(ChunkId id) const;
  // Pins every request of `acquisition` and issues its copies (Plan::done), or keeps nothing
  // pinned and starts evictions for the room it lacks (Plan::wait); throws its error.
  Plan plan(Acquisition& acquisition, Actions& later);
  // Plans the waiting acquisitions again, in arrival order.
  void retry_waiting(Actions& later);
  bool can_progress(SpaceId space) const;
  // `scan`: false after an allocation of the same plan found no copy to drop among the first in
  // eviction order (its own pins only take candidates away): the pool alone is tried.
  bool allocate(ChunkId id, SpaceId space, Actions& later, bool scan = true);
  // Starts moving least-recently-used copies out of `space` until `bytes` are on their way.
  void make_room(SpaceId space, std::uint64_t bytes, Acquisition& acquisition, Actions& later);
  // Frees an unpinned copy that is not the only valid one to make room (an eviction if it held
  // the current contents).
  void drop_for_room(Chunk& record, SpaceId space, Actions& later);
  bool only_valid_copy(const Chunk& record, SpaceId space) const;
  // Issues the copies that make `id` valid in `space` (through the host when needed); false
  // when the host has no room for the copy on the way.
  bool fetch(ChunkId id, SpaceId space, Acquisition& acquisition, Actions& later);
  device::Event start_copy(ChunkId id, SpaceId from, SpaceId to, std::uint64_t tag, bool eviction,
                           Actions& later);
  void finish_copy(const Transfer& transfer, std::exception_ptr error);
  // Frees the copy now, or once the copies in flight on it are done.
  void drop_copy(ChunkId id, SpaceId space, Actions& later);
  void free_copy(Chunk& record, SpaceId space, Actions& later);
  // Runs `job` on the I/O executor once `after` completed (`job` gets their first error).
  void run_io(const char* what, std::vector<device::Event> after,
              std::function<void(std::exception_ptr)> job, Actions& later);
  void post_io(const char* what, std::function<void()> job);
  void complete(const std::shared_ptr<Acquisition>& acquisition, Actions& later);
  void pin(ChunkId id, SpaceId space, ChunkAccess access);
  void unpin(ChunkId id, SpaceId space, ChunkAccess access);
  // The written copy in `space` becomes the only valid one (under state_lock_).
  void mark_written(ChunkId id, SpaceId space, Actions& later);
  // Puts the unpinned copy in `space` into its eviction order, as used now.
  void lru_push(ChunkId id, SpaceId space);
  static std::optional<std::uint64_t> next_use(const Chunk& record);
  // Places the chunk's unpinned copies again after its next use changed.
  void reorder(Chunk& record);
  void operation_done(Actions& later);
  ChunkView view_of(ChunkId id, SpaceId space, ChunkAccess access);
  [[noreturn]] void out_of_memory(std::span<const ChunkRequest> requests, SpaceId space) const;

  std::vector<std::unique_ptr<Space>> spaces_;
  std::unique_ptr<SpillStore> spill_;
  std::map<const device::Device*, SpaceId> device_spaces_;
  std::unordered_map<std::uint64_t, std::unique_ptr<Chunk>> chunks_;  // by ChunkId::index
  std::uint64_t next_chunk_ = 0;
  std::uint64_t next_spill_key_ = 1;  // spill files are named per disk copy, not per chunk
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> bytes_moved_;
  std::function<void(const CopyRecord&)> copy_observer_;
  std::list<std::shared_ptr<Acquisition>> waiting_;  // acquisitions waiting for room
  std::uint64_t operations_ = 0;                     // copies, spill I/O and removals in flight
  IoExecutor io_executor_;
  std::unique_ptr<IoThreads> io_threads_;  // while no I/O executor is set

  mutable AdaptiveMutex state_lock_;
  std::condition_variable_any idle_;  // operations_ reached 0
};

}  // namespace strata::memory
