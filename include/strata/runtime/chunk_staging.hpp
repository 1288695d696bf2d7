#pragma once
// Stages tasks' data through the memory manager: each DataHandle is backed by a chunk and each
// executor works in one memory space, so before a task runs every chunk it declared is present
// and pinned in its executor's space (all or none), and afterwards unpinned.

#include <map>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "strata/base/adaptive_mutex.hpp"
#include "strata/memory/memory_manager.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/staging.hpp"

namespace strata::runtime {

// A piece of data named once: the runtime's handle for ordering tasks and the memory manager's
// chunk that holds its bytes, bound together.
struct ChunkData {
  DataHandle data;
  memory::ChunkId chunk;
  std::uint64_t bytes = 0;
};

class ChunkStaging final : public StagingHook {
 public:
  // Staging never blocks: a task's acquisition reserves memory and issues its copies on the
  // copy queues, and the task is handed to its executor from the completion of the last copy
  // (the lightning paper's asynchronous memory manager).
  // With `runtime`, spill I/O runs on the runtime's I/O executor, and the copies made for a
  // task appear in its trace on the task's executor's memory lane ("copy host -> cuda:0: tile
  // 7"), with a "memory used: <space>" counter; without it, spill I/O runs on the memory
  // manager's own I/O threads.
  explicit ChunkStaging(memory::MemoryManager& memory, Runtime* runtime = nullptr);
  // Waits for the memory manager's copies in flight.
  ~ChunkStaging() override;
  ChunkStaging(const ChunkStaging&) = delete;
  ChunkStaging& operator=(const ChunkStaging&) = delete;

  // Creates a chunk of `bytes` (with `initial` contents, on the host, if given) and a data
  // handle of the same name backed by it. Needs the runtime given at construction.
  ChunkData create_data(std::string name, std::uint64_t bytes,
                        std::span<const std::byte> initial = {});
  // Unbinds and destroys what create_data() made; no task may declare it any more.
  void destroy_data(const ChunkData& data);

  // Backs `data` by `chunk`; accesses to unbound data are ordered but not staged.
  void bind(const DataHandle& data, memory::ChunkId chunk);
  // Forgets the binding of `data` (its chunk is about to be destroyed; no task declares it any
  // more).
  void unbind(const DataHandle& data);
  // Tasks of `executor` get their chunks in `space` (unplaced executors: the host), and with the
  // runtime given at construction stage at most half of its capacity ahead.
  void place(ExecutorId executor, memory::SpaceId space);

  // Where the running task finds `data` (which it declared and which is bound).
  memory::ChunkView view(const TaskContext& task, const DataHandle& data) const;

  void stage(const StagingRequest& request, std::function<void(std::exception_ptr)> done) override;
  void unstage(const StagingRequest& request) override;
  void enqueued(const StagingRequest& request) override;
  // The memory manager learns which chunks submitted tasks will use (expect_use / end_use).
  void declared(const StagingRequest& request) override;
  void retired(const StagingRequest& request) override;
  // The memory manager's statistics, for the run summary.
  std::string summary() const override;
  // Where the chunk bound to `data` has valid copies (MemoryManager::valid_copies()).
  std::vector<std::uint32_t> valid_copies(const DataHandle& data) const override;
  // The space place() gave `executor` (the host for unplaced executors).
  std::optional<std::uint32_t> memory_space(ExecutorId executor) const override;

 private:
  std::vector<memory::ChunkRequest> chunks_of(const StagingRequest& request) const;  // lock_ held
  std::vector<memory::ChunkId> chunk_ids_of(const StagingRequest& request) const;
  memory::SpaceId space_of(ExecutorId executor) const;

  memory::MemoryManager& memory_;
  Runtime* runtime_;
  mutable AdaptiveMutex lock_;
  std::unordered_map<std::uint64_t, memory::ChunkId> bindings_;  // DataHandle id -> chunk
  std::map<std::uint32_t, memory::SpaceId> placements_;
  std::unordered_map<std::uint64_t, std::vector<memory::ChunkView>> staged_;  // task id -> views
};

}  // namespace strata::runtime
