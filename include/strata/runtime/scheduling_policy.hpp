#pragma once
// Policies that choose among ready tasks: within one executor (SchedulingPolicy) and between
// executors a task may run on (PlacementPolicy: least-loaded, PATS, locality).

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "strata/runtime/executor.hpp"
#include "strata/runtime/task_view.hpp"

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

// Chooses the executor for a ready task that may run on several (a task with one candidate never
// reaches the policy). Two ways:
// - push: when the task becomes ready, choose() names one of its candidates at once;
// - pull (pulls() is true): the task waits in a shared pool; whenever a candidate executor has an
//   idle worker, pick() chooses which pooled task that executor takes. Tasks whose candidates
//   include no pulling executor (Executor::pulls()) still go through choose().
// Calls are serialized for pick() (under the pool's lock) but not for choose(): keep both
// thread-safe and short.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // A short name for traces ("pats", "fcfs", ...).
  virtual const char* name() const { return "custom"; }
  // Returns an index into `candidates` (the task's candidates, in the order it listed them).
  virtual std::size_t choose(const TaskView& task, std::span<const ExecutorView> candidates) = 0;
  virtual bool pulls() const { return false; }
  // Returns an index into `pool` (never empty: the pooled tasks `executor` may run, oldest
  // first).
  virtual std::size_t pick(const ExecutorView& /*executor*/, std::span<const TaskView> /*pool*/) {
    return 0;
  }
};

// Push: the candidate with the fewest queued tasks per worker; ties go to the first listed. The
// default.
std::unique_ptr<PlacementPolicy> make_least_loaded_placement();

// The region-templates paper's Performance Aware Task Scheduling (§3.3.1). Pull: an idle
// device-compute worker takes the pooled task with the largest speedup (TaskView::speedup()), any
// other worker (a CPU core) the one with the smallest; higher priority first, ties to the oldest.
struct PatsOptions {
  // The paper's data-locality refinement (DL): 0 switches it off. With a value t in (0, 1], a
  // device takes the best-speedup task among those whose data mostly (by bytes) already lies in
  // its memory space, Sd, instead of the best overall, Sq, when Sd >= Sq * (1 - t): t is the share
  // of a task's time that transfers take.
  double transfer_impact = 0;
};
std::unique_ptr<PlacementPolicy> make_pats_policy(PatsOptions options = {});

// Push: the candidate whose memory space already holds most of the task's bytes (valid copies,
// as the staging hook reports them); among equals, the least loaded. A candidate whose queue per
// worker is longer than the least loaded one's by more than `max_load_gap` is passed over, so
// data that lies in one space does not pile every task onto one executor.
struct LocalityOptions {
  double max_load_gap = 4;
};
std::unique_ptr<PlacementPolicy> make_locality_placement(LocalityOptions options = {});

// Pull: an idle candidate takes the oldest pooled task it may run, higher priority first (the
// paper's first-come-first-served baseline). Estimates are not used.
std::unique_ptr<PlacementPolicy> make_fcfs_placement();

// The policy the setting runtime.placement names: "least-loaded", "locality", "pats", "pats-dl"
// (PATS with transfer_impact) or "fcfs". Throws naming the known ones for any other name.
std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name,
                                                       double transfer_impact = 0.25);

}  // namespace strata::runtime
