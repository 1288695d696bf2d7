#pragma once
// Policies that choose among ready tasks: within one executor (SchedulingPolicy) and between
// executors a task may run on (PlacementPolicy, where CPU/GPU-aware policies such as PATS plug in).

#include <cstddef>
#include <memory>
#include <span>

#include "strata/runtime/executor.hpp"

namespace strata::runtime {

// Orders the ready tasks of one executor. Thread-safe: every worker pushes and pops.
class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // Called once before use with the executor's worker count.
  virtual void configure(unsigned workers) = 0;
  // `worker` is the pushing worker of this executor, or -1 when pushed from elsewhere.
  virtual void push(ReadyTask* task, int worker) = 0;
  // The next task for `worker`, or nullptr when none is ready.
  virtual ReadyTask* pop(unsigned worker) = 0;
  virtual std::size_t size() const = 0;
};

// Per-worker deques, newest first locally, oldest first when stealing, priorities first.
std::unique_ptr<SchedulingPolicy> make_work_stealing_policy();
// One shared queue per priority level, oldest first (I/O pools, device queues).
std::unique_ptr<SchedulingPolicy> make_priority_fifo_policy();

// Chooses the executor for a ready task that may run on several.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // Returns an index into `candidates`.
  virtual std::size_t choose(const ReadyTask& task, std::span<Executor* const> candidates) = 0;
};

// Picks the candidate with the fewest queued tasks per worker; ties go to the first listed.
std::unique_ptr<PlacementPolicy> make_least_loaded_placement();

}  // namespace strata::runtime
