#pragma once
// Runtime: one process's task runtime. Submit tasks with dependencies and data accesses; the
// runtime orders conflicting accesses, stages data, runs tasks on per-resource executors and
// reports failures, utilization and a trace.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/base/config.hpp"
#include "strata/runtime/executor.hpp"
#include "strata/runtime/run_history.hpp"
#include "strata/runtime/run_summary.hpp"
#include "strata/runtime/scheduling_policy.hpp"
#include "strata/runtime/settings.hpp"
#include "strata/runtime/staging.hpp"
#include "strata/runtime/task.hpp"
#include "strata/runtime/task_observer.hpp"

namespace strata::runtime {

class Runtime {
 public:
  // Starts the CPU pool and the I/O pool as the configuration says.
  explicit Runtime(Config config = Config::from_environment());
  // Waits for every task (errors not yet collected are logged), writes the trace if asked.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Config& config() const;

  // Submits a task. Never blocks on execution, except when max_tasks_in_flight tasks are
  // unfinished: then it waits (or, called from a worker, runs other tasks) until one finishes.
  TaskHandle submit(TaskSpec spec, TaskFunction body);
  // The same as submit(TaskSpec(), body), without building a spec.
  TaskHandle submit(TaskFunction body);
  // Submits a task without returning a handle (fire and forget, like StarPU's task_insert):
  // cheaper, since no handle's reference is dropped. wait_all() waits for it and reports its
  // failure; data accesses order it as they order submitted tasks.
  void spawn(TaskSpec spec, TaskFunction body);
  void spawn(TaskFunction body);

  // Runs `work` on `executor` as a runtime-internal task named `name` (a span in the trace): never
  // throttled, never cancelled, without dependencies or data, not counted among the summary's
  // tasks; wait_all() waits for it. Never blocks, so layers under the runtime may call it from
  // any thread (the memory manager's spill I/O goes to io() this way). `work` must not throw: an
  // exception it lets out is logged.
  void post(ExecutorId executor, std::string name, std::function<void()> work);

  // A task that finishes when all of `tasks` have (fails if any failed).
  TaskHandle when_all(const std::vector<TaskHandle>& tasks);

  // Registers a piece of data tasks can declare accesses on; `bytes` is its staging footprint.
  DataHandle create_data(std::string name, std::uint64_t bytes = 0);

  // Waits for every submitted task. If a task failed, throws TaskFailed for the first failure
  // (naming the task, keeping the original error); the runtime is usable again afterwards.
  void wait_all();

  // Cancels every task that has not started yet.
  void cancel_all();

  ExecutorId cpu() const;
  ExecutorId io() const;
  // Registers an executor (device queues, network); the runtime starts and stops it.
  ExecutorId add_executor(std::unique_ptr<Executor> executor);
  Executor& executor(ExecutorId id);

  void set_staging_hook(StagingHook* hook);
  // Stages at most `bytes` of `executor`'s tasks' data ahead (or staging_max_bytes, if lower):
  // the staging hook gives a device's executor half its memory.
  void limit_staging_bytes(ExecutorId executor, std::uint64_t bytes);
  // Replaces the policy the configuration named (runtime.placement); null: least-loaded.
  void set_placement_policy(std::unique_ptr<PlacementPolicy> policy);
  // Measured run times (read from runtime.history at start, written back at the end): device
  // layers record kernel runs here, and take learned speedups from it.
  RunHistory& history();

  std::uint64_t tasks_in_flight() const;
  RunSummary summary() const;
  // Adds a listener for task events (see task_observer.hpp); it sees tasks that run or finish
  // from now on. The runtime holds it until remove_observer() or its own end.
  void add_observer(std::shared_ptr<TaskObserver> observer);
  // Stops calling `observer`; calls already under way may still be running on other threads.
  void remove_observer(const TaskObserver* observer);
  // Starts recording per-task spans (also switched on by the `trace` setting).
  void enable_tracing();
  // Whether spans are being recorded.
  bool tracing() const;
  // Records a span on `executor`'s memory lane of the trace (a copy the memory manager made for
  // one of its tasks); nothing when not tracing.
  void trace_memory_span(ExecutorId executor, const std::string& name,
                         std::chrono::steady_clock::time_point start,
                         std::chrono::steady_clock::time_point end, std::uint64_t bytes);
  // Records a sample of the counter `name` in the trace; nothing when not tracing.
  void trace_counter(const std::string& name, std::int64_t value);
  // Writes recorded spans and counters as Chrome trace-event JSON (opens in Perfetto).
  void write_trace(const std::string& path) const;

 private:
  std::unique_ptr<detail::RuntimeCore> core_;
};

}  // namespace strata::runtime
