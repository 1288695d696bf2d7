#pragma once
// TaskState: the runtime's record of one task, shared by handles, predecessors and data states.

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spin_lock.hpp"
#include "strata/runtime/task.hpp"

namespace strata::runtime::detail {

class RuntimeCore;
struct DataState;

// What an exception says (its what()), or "cancelled" for none.
std::string describe(const std::exception_ptr& error);

// Why a task did not succeed: the task whose body threw (or was cancelled) and its error.
struct FailureRecord {
  std::string task;
  std::uint64_t task_id = 0;
  std::exception_ptr error;  // null for an explicit cancellation
  bool cancelled = false;
  // How many wait_all() calls had collected failures when this one happened: a later call
  // collects it (see RuntimeCore::collected()).
  std::uint64_t collection = 0;
  // For a failure reported again because a task that depends on it did not run after it was
  // collected: that task's name.
  std::string dependent;
};

// The runtime's record of one task. Records are recycled (create() / the last release()), so
// their vectors keep their capacity from one task to the next. recycle() resets each field by
// hand: a new field must be reset there too. Aligned to cache lines, a record spans five of them,
// not six: each line a task touches travels from the submitting thread to a worker and back.
struct alignas(64) TaskState {
  // A record in the state of a default-constructed TaskState.
  static TaskState* create();

  // Lifetime: handles, the in-flight runtime, predecessor lists and data states each hold one.
  std::atomic<std::int32_t> references{1};
  // Unfinished predecessors, plus one held by submit() until all edges are added.
  std::atomic<std::int32_t> unmet{1};
  std::atomic<TaskStatus> status{TaskStatus::pending};
  std::atomic<bool> cancel_requested{false};
  std::atomic<std::uint32_t> finished{0};  // 0 -> 1 once, waited on with atomic wait

  SpinLock lock;  // guards the fields below until `closed`
  bool closed = false;
  std::vector<TaskState*> successors;
  std::vector<std::function<void(const TaskHandle&)>> callbacks;
  std::shared_ptr<const FailureRecord> failure;  // own failure or the inherited cause

  TaskFunction body;
  std::string name;
  std::uint64_t id = 0;
  Priority priority = Priority::normal;
  std::vector<ExecutorId> candidates;
  ExecutorId executor;
  // A reader group (barrier): its readers not yet enqueued in queue order, plus the datum's open
  // share (as `unmet` counts those not finished). At zero the group counts as enqueued.
  std::atomic<std::int32_t> enqueue_unmet{0};
  std::vector<DataAccess> accesses;  // one per datum, duplicates merged
  std::uint64_t bytes = 0;
  bool footprint_given = false;  // `bytes` set by TaskSpec::footprint, not summed from the data
  bool staged = false;           // counted against a staging budget
  bool has_reduce = false;       // one of its accesses is a reduce (it needs the reduce gates)
  bool holds_gates = false;      // holds the reduce gates of its reduce accesses
  bool hook_staged = false;      // the staging hook staged its data; unstage when finished
  bool hook_declared = false;    // the staging hook knows it will use its data; retire it
  bool deferred = false;         // body handed completion to a DeferredCompletion
  bool internal = false;         // posted by a layer under the runtime: never cancelled
  bool barrier = false;  // a reader group: never runs, not counted; finishes when its count does
  std::atomic<bool> completed{false};  // complete() ran (guards against a second call)
  // A deferred task finishes when both its body returned and its completion fired, whichever
  // is last (2 -> 0), so that no body still runs once wait_all() returned.
  std::atomic<std::uint8_t> deferred_parts{0};
  // Taken from the ready pool by an executor and not started yet, or its body returned and its
  // deferred completion has not finished it (counted in RuntimeCore::pulled_pending_ of its
  // executor meanwhile).
  bool pulled = false;
  // Queue order (TaskSpec::in_queue_order()). A queue-ordered task whose body returned with its
  // work enqueued is `enqueued` (under `lock`): its queue-ordered successors on its executor
  // ("queue successors") no longer wait for it to finish, only to be enqueued. Each such
  // predecessor holds its successor's finish: `finish_holds` counts 1 for the task's own finish
  // plus one per queue predecessor not finished yet; a task whose own finish comes first parks
  // its status in `parked_status` and the last predecessor to finish finishes it.
  bool queue_ordered = false;  // a reader group: every reader so far is, on `executor`
  bool enqueued = false;
  std::atomic<std::uint16_t> finish_holds{1};
  TaskStatus parked_status = TaskStatus::pending;
  std::exception_ptr deferred_error;  // what the completion reported, read by the last part
  RuntimeCore* runtime = nullptr;
  std::shared_ptr<const CostHints> hints;  // from the TaskSpec; null: none

  void retain() { references.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (references.fetch_sub(1, std::memory_order_acq_rel) == 1) recycle();
  }
  bool is_finished() const { return finished.load(std::memory_order_acquire) != 0; }

 private:
  // Resets every field and hands the record to the free list (deletes it under ASan).
  void recycle();
};

}  // namespace strata::runtime::detail
