#pragma once
// Stages tasks' data through the memory manager: each DataHandle is backed by a chunk and each
// executor works in one memory space, so before a task runs every chunk it declared is present
// and pinned in its executor's space (all or none), and afterwards unpinned.

#include <map>
#include <mutex>

#include "strata/memory/memory_manager.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/staging.hpp"

namespace strata::runtime {

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

  // Backs `data` by `chunk`; accesses to unbound data are ordered but not staged.
  void bind(const DataHandle& data, memory::ChunkId chunk);
  // Forgets the binding of `data` (its chunk is about to be destroyed; no task declares it any
  // more).
  void unbind(const DataHandle& data);
  // Tasks of `executor` get their chunks in `space` (unplaced executors: the host).
  void place(ExecutorId executor, memory::SpaceId space);

  // Where the running task finds `data` (which it declared and which is bound).
  memory::ChunkView view(const TaskContext& task, const DataHandle& data) const;

  void stage(const StagingRequest& request, std::function<void(std::exception_ptr)> done) override;
  void unstage(const StagingRequest& request) override;
  // The memory manager's statistics, for the run summary.
  std::string summary() const override;

 private:
  std::vector<memory::ChunkRequest> chunks_of(const StagingRequest& request) const;
  memory::SpaceId space_of(ExecutorId executor) const;

  memory::MemoryManager& memory_;
  mutable std::mutex lock_;
  std::map<std::uint64_t, memory::ChunkId> bindings_;  // DataHandle id -> chunk
  std::map<std::uint32_t, memory::SpaceId> placements_;
  std::map<std::uint64_t, std::vector<memory::ChunkView>> staged_;  // task id -> views
};

}  // namespace strata::runtime
