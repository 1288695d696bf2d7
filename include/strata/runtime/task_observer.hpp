#pragma once
// TaskObserver: a listener for task events, as Taskflow's observer interface. The trace's task
// spans come through one; a front end adds its own (a progress bar, statistics) with
// Runtime::add_observer() without touching the core.

#include <cstdint>
#include <string_view>

#include "strata/runtime/task.hpp"

namespace strata::runtime {

// A task body that ran: where, and when on the runtime's clock (nanoseconds since it started).
struct TaskRun {
  std::string_view name;
  std::uint64_t task_id = 0;
  ExecutorId executor;
  unsigned worker = 0;  // the executor's worker it ran as
  unsigned lane = 0;    // the thread that ran it (a stand-in has a lane of its own)
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t bytes = 0;  // the task's data footprint
  Priority priority = Priority::normal;
  // Tasks that could run on several executors: how many, the policy that chose (its name()),
  // and the cost hints it saw (null when none); 1, null and null for the others.
  std::uint32_t candidates = 1;
  const char* placed_by = nullptr;
  const CostHints* hints = nullptr;
};

// Called from the runtime's threads, concurrently: keep the calls short and thread-safe, and do
// not wait for tasks inside them.
class TaskObserver {
 public:
  virtual ~TaskObserver() = default;
  // A task's body returned (or threw), on the thread that ran it.
  virtual void on_run(const TaskRun& /*run*/) {}
  // A task finished: succeeded, failed or cancelled, also one that never ran (a dependent of a
  // failure, a cancelled task). Once per submitted task, on the thread that finished it, before
  // any task that waits for its finish starts (an in_queue_order() successor does not wait).
  virtual void on_finish(std::string_view /*name*/, std::uint64_t /*task_id*/,
                         TaskStatus /*status*/) {}
};

}  // namespace strata::runtime
