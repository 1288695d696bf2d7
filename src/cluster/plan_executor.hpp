#pragma once
// PlanExecutor: a rank's side of planning. It turns the driver's plans into runtime tasks on
// this rank (operations on the CPU pool, sends and receives on the network executor) backed by
// chunks of the rank's memory manager, and reports progress (with its devices' loads) and
// failures to the driver.

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "strata/cluster/network.hpp"
#include "strata/cluster/operation.hpp"
#include "strata/cluster/plan.hpp"
#include "strata/cluster/plan_kinds.hpp"
#include "strata/memory/memory_manager.hpp"
#include "strata/runtime/chunk_staging.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::cluster::detail {

// Per executor: the operations of plans submitted with it as their one executor and not finished
// yet (executors past the bound are not counted). Relaxed counters, off the runtime's hot path;
// the program keeps them, so a load reporter reads them for as long as the program lives.
class UnfinishedCounts {
 public:
  static constexpr std::uint32_t counted_executors = 64;
  // Counts one on the only executor of `executors`; what done() takes (0: not counted).
  std::uint32_t add(std::span<const runtime::ExecutorId> executors) {
    if (executors.size() != 1 || executors.front().index >= counted_executors) return 0;
    counts_[executors.front().index].fetch_add(1, std::memory_order_relaxed);
    return executors.front().index + 1;
  }
  void done(std::uint32_t counted) {
    if (counted != 0) counts_[counted - 1].fetch_sub(1, std::memory_order_relaxed);
  }
  std::uint64_t on(runtime::ExecutorId executor) const {
    if (executor.index >= counted_executors) return 0;
    return counts_[executor.index].load(std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<std::uint64_t>, counted_executors> counts_{};
};

class PlanExecutor final : public PlanContext {
 public:
  // The kinds of `kinds` join the built-in ones (execute, send, receive, drop, write_in,
  // read_back, read_size). Operations are counted per executor in `unfinished`; `reporter`
  // (optional) reads the devices' loads for progress reports.
  PlanExecutor(Network& network, runtime::Runtime& runtime, memory::MemoryManager& memory,
               runtime::ChunkStaging& staging, runtime::ExecutorId network_executor,
               const OperationTable& operations, const PlanKindTable& kinds,
               UnfinishedCounts& unfinished, LoadReporter reporter = {});
  // Waits for the plans taken so far to be submitted.
  ~PlanExecutor();
  PlanExecutor(const PlanExecutor&) = delete;
  PlanExecutor& operator=(const PlanExecutor&) = delete;

  // Takes a plan (from the network thread); its operations are submitted in order.
  void enqueue(Plan plan);
  // The bytes a read_back operation copied out; waits for them, calling `check` (which may
  // throw, e.g. when a rank failed) now and then.
  std::vector<std::byte> take_read_back(std::uint64_t op, const std::function<void()>& check);
  // On the driver: what another rank read for operation `result.op` (from the network thread).
  void deliver(ReadResult result);

  // This rank's devices' loads now (empty without a reporter).
  std::vector<DeviceLoad> loads() const;
  // Tells the driver the operations finished so far and the devices' loads now. Besides this,
  // a rank reports when it ran out of work, every report_every operations (the driver's own rank
  // without loads: they are read when needed; another rank only with a reporter) and, other than
  // the driver's, after it submitted a plan, so the driver sees work arrive and leave, and its
  // plan window (Driver) moves while the ranks work.
  void report_progress();
  static constexpr std::uint64_t report_every = 256;
  // On the driver's rank: where its own progress and failures go, called on the thread that
  // finished the operation instead of messages through the network thread (one thread hop less
  // from a kernel's end to wait_all() returning; a failure still arrives before the progress that
  // counts its task). Set before the first plan.
  struct LocalReports {
    std::function<void(const Progress&)> progress;
    std::function<void(const FailureReport&)> failure;
  };
  void report_locally(LocalReports reports) { local_ = std::move(reports); }

  // PlanContext, for the kinds' handlers.
  int rank() const override { return network_.rank(); }
  runtime::Runtime& runtime() override { return runtime_; }
  runtime::ChunkStaging& staging() override { return staging_; }
  memory::MemoryManager& memory() override { return memory_; }
  runtime::DataHandle chunk(const PlannedAccess& access) override { return local(access).data; }
  std::optional<runtime::ExecutorId> writer_executor(const PlannedAccess& access) override {
    return local(access).writer;
  }
  runtime::TaskHandle submit(runtime::TaskSpec spec, runtime::TaskFunction body,
                             std::span<const PlannedAccess> accesses) override;
  runtime::TaskHandle submit_part(runtime::TaskSpec spec, runtime::TaskFunction body,
                                  std::span<const PlannedAccess> accesses) override;

  // A tracked operation being carried out: its handler (one count) and the tasks it counted.
  struct TrackedOp {
    explicit TrackedOp(std::uint64_t id) : op(id) {}
    std::uint64_t op;
    std::atomic<std::uint64_t> pending{1};
  };

 private:
  // Counts one part of `tracked` done; the last tells the driver.
  void release(TrackedOp& tracked);
  // Tasks touching one chunk copy are remembered for a later drop, and drops of chunks no
  // receive followed (yet) until one does; finished ones are pruned past these (at least).
  static constexpr std::size_t prune_users_above = 64;
  static constexpr std::size_t prune_drops_above = 256;
  // This rank's copy of a distributed chunk.
  struct LocalChunk {
    runtime::DataHandle data;
    memory::ChunkId chunk;
    std::uint64_t bytes = 0;
    std::vector<runtime::TaskHandle> users;          // tasks that touched this copy (for drop)
    std::size_t prune_users_at = prune_users_above;  // users pruned of finished ones past this
    std::optional<runtime::ExecutorId> writer;       // the executor of its last planned writer
  };
  void serve();
  void submit(const PlanOp& op);
  void execute(const PlanOp& op);
  void send(const PlanOp& op);
  void receive(const PlanOp& op);
  void drop(const PlanOp& op);
  void write_in(const PlanOp& op);
  void read_back(const PlanOp& op);
  void read_size(const PlanOp& op);
  LocalChunk& local(const PlannedAccess& access);
  std::vector<LocalChunk*> chunks_of(std::span<const PlannedAccess> accesses);
  // `counted`: the task ends its operation (counts toward the rank's progress).
  runtime::TaskHandle submit_task(runtime::TaskSpec spec, runtime::TaskFunction body,
                                  const std::vector<LocalChunk*>& chunks, bool counted = true);
  void submit_transfer(const PlanOp& op, bool sending);
  // A late-sized chunk's transfer: its size, then that many bytes.
  void send_late(const memory::ChunkView& view, int peer, std::uint64_t transfer,
                 TransferDone done);
  void receive_late(const memory::ChunkView& view, int peer, std::uint64_t transfer,
                    TransferDone done);
  void finished(const runtime::TaskHandle& task, std::uint32_t counted_on, bool counted);
  void report_failure(const FailureReport& report);

  Network& network_;
  runtime::Runtime& runtime_;
  memory::MemoryManager& memory_;
  runtime::ChunkStaging& staging_;
  runtime::ExecutorId network_executor_;
  const OperationTable& operations_;
  const PlanKindTable& kinds_;
  std::map<std::string, void (PlanExecutor::*)(const PlanOp&)> builtin_;

  std::map<std::uint64_t, LocalChunk> chunks_;  // used by the plan thread only
  // The drop of a chunk's last copy on this rank, until a receive makes a new copy: the receive
  // waits for it, so its buffer is allocated once the old copy's memory is free, and the memory
  // allocator hands out that memory again, still in the cache. Planned ahead, each receive of a
  // chunk bouncing between ranks took fresh memory (measured: 25 buffers of 4 MiB per rank in
  // 50 steps), as slow to fill as memory never touched.
  std::map<std::uint64_t, runtime::TaskHandle> drops_;  // used by the plan thread only
  std::size_t prune_drops_at_ = prune_drops_above;      // drops_ pruned of finished ones past this

  UnfinishedCounts& unfinished_;
  LoadReporter reporter_;
  LocalReports local_;

  std::atomic<std::uint64_t> submitted_{0};
  std::atomic<std::uint64_t> finished_{0};
  std::atomic<bool> failure_reported_{false};

  std::mutex results_lock_;
  std::condition_variable result_ready_;
  std::map<std::uint64_t, std::vector<std::byte>> results_;

  std::mutex lock_;
  std::condition_variable wake_;
  std::deque<Plan> plans_;
  std::atomic<std::size_t> queued_{0};  // plans_.size(), read without the lock
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace strata::cluster::detail
