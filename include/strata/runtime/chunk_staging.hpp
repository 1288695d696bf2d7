#pragma once
// Stages tasks' data through the memory manager: each DataHandle is backed by a chunk and each
// executor works in one memory space, so before a task runs every chunk it declared is present
// and pinned in its executor's space (all or none), and afterwards unpinned.

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "strata/memory/memory_manager.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/staging.hpp"

namespace strata::runtime {

class ChunkStaging final : public StagingHook {
 public:
  // Acquisitions run on a staging thread of its own (the memory manager's thread in the
  // lightning paper), so neither submitters nor workers block on memory.
  // With `runtime`, the copies made for a task appear in its trace on the task's executor's
  // memory lane ("copy host -> cuda:0: tile 7").
  explicit ChunkStaging(memory::MemoryManager& memory, Runtime* runtime = nullptr);
  ~ChunkStaging() override;
  ChunkStaging(const ChunkStaging&) = delete;
  ChunkStaging& operator=(const ChunkStaging&) = delete;

  // Backs `data` by `chunk`; accesses to unbound data are ordered but not staged.
  void bind(const DataHandle& data, memory::ChunkId chunk);
  // Tasks of `executor` get their chunks in `space` (unplaced executors: the host).
  void place(ExecutorId executor, memory::SpaceId space);

  // Where the running task finds `data` (which it declared and which is bound).
  memory::ChunkView view(const TaskContext& task, const DataHandle& data) const;

  void stage(const StagingRequest& request, std::function<void(std::exception_ptr)> done) override;
  void unstage(const StagingRequest& request) override;

 private:
  struct Pending {
    std::uint64_t task;
    ExecutorId executor;
    std::vector<memory::ChunkRequest> chunks;
    memory::SpaceId space;
    std::function<void(std::exception_ptr)> done;
  };
  std::vector<memory::ChunkRequest> chunks_of(const StagingRequest& request) const;
  memory::SpaceId space_of(ExecutorId executor) const;
  void serve();

  memory::MemoryManager& memory_;
  mutable std::mutex lock_;
  std::condition_variable wake_;
  std::map<std::uint64_t, memory::ChunkId> bindings_;  // DataHandle id -> chunk
  std::map<std::uint32_t, memory::SpaceId> placements_;
  std::map<std::uint64_t, std::vector<memory::ChunkView>> staged_;  // task id -> views
  std::deque<Pending> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace strata::runtime
