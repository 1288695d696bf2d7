#pragma once
// Tasks as users see them: what to submit (TaskSpec), what comes back (TaskHandle), what a
// running task can reach (TaskContext), and the errors a failed task produces.

#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/runtime/data_handle.hpp"
#include "strata/runtime/executor_kind.hpp"
#include "strata/runtime/task_function.hpp"

namespace strata::runtime {

namespace detail {
struct TaskState;
class RuntimeCore;
}  // namespace detail

class Runtime;

// Scheduling priority among ready tasks of one executor; higher runs first.
enum class Priority : std::uint8_t { low = 0, normal = 1, high = 2 };
inline constexpr int priority_levels = 3;

// Where a task is in its life.
enum class TaskStatus : std::uint8_t {
  pending,    // waiting for dependencies, staging or a worker
  running,    // its body is executing (or awaits a deferred completion)
  succeeded,  // finished normally
  failed,     // its body threw, or a task it depends on failed
  cancelled,  // cancelled before it ran (explicitly, or because the run failed)
};

const char* to_string(TaskStatus status);

// Index of an executor registered with a runtime (Runtime::cpu(), Runtime::io(), ...).
struct ExecutorId {
  std::uint32_t index = 0;
  friend bool operator==(ExecutorId, ExecutorId) = default;
};

// One declared data access of a task.
struct DataAccess {
  DataHandle data;
  Access mode = Access::read;
};

// A task that failed: names the task and keeps the original exception (original()).
class TaskFailed : public Error {
 public:
  TaskFailed(std::string task, std::exception_ptr original, const std::string& message)
      : Error(message), task_(std::move(task)), original_(std::move(original)) {}
  // The task whose body threw (for a dependent, the failed dependency).
  const std::string& task() const { return task_; }
  const std::exception_ptr& original() const { return original_; }
  [[noreturn]] void rethrow_original() const { std::rethrow_exception(original_); }

 private:
  std::string task_;
  std::exception_ptr original_;
};

// Waiting on a task that was cancelled before it ran.
class TaskCancelled : public Error {
 public:
  using Error::Error;
};

struct TaskSpec;

// A reference to a submitted task: wait for it, ask its status, attach callbacks, cancel it.
// Waiting from inside a task hands the worker to a stand-in thread until the wait is over.
class TaskHandle {
 public:
  TaskHandle() = default;
  TaskHandle(const TaskHandle& other);
  TaskHandle(TaskHandle&& other) noexcept : state_(other.state_) { other.state_ = nullptr; }
  TaskHandle& operator=(TaskHandle other) noexcept {
    std::swap(state_, other.state_);
    return *this;
  }
  ~TaskHandle();

  explicit operator bool() const { return state_ != nullptr; }
  const std::string& name() const;
  // The task's id, as the staging hook sees it in StagingRequest::task_id.
  std::uint64_t task_id() const;
  TaskStatus status() const;
  bool done() const;
  // Waits until the task finished; throws TaskFailed / TaskCancelled if it did not succeed.
  void wait() const;
  // Runs `callback` once the task finished (at once if it already has), on the finishing thread.
  // The task's waiters are released first: wait() may return before its callbacks ran;
  // Runtime::wait_all() returns after them.
  void on_complete(std::function<void(const TaskHandle&)> callback) const;
  // Cancels the task if it has not started; its dependents are cancelled too.
  void cancel() const;

 private:
  friend class Runtime;
  friend class detail::RuntimeCore;
  friend struct TaskSpec;
  explicit TaskHandle(detail::TaskState* adopted) : state_(adopted) {}
  detail::TaskState* state_ = nullptr;
};

// What to submit: a name, the executor(s) that may run it, a priority, dependencies on other
// tasks, declared data accesses and optional cost hints for the placement policy. Build it with
// the chainable setters.
struct TaskSpec {
  std::string name = "task";
  std::vector<ExecutorId> executors;  // empty: the CPU pool; several: the placement policy picks
  Priority priority = Priority::normal;
  std::vector<TaskHandle> predecessors;
  std::vector<DataAccess> accesses;
  std::uint64_t bytes = 0;     // data footprint counted against the staging budget
  bool queue_ordered = false;  // see in_queue_order()
  // Estimates for policies that weigh executors (PATS); null: none. Shared, so that many tasks of
  // one operation can carry one set of hints without copying it.
  std::shared_ptr<const CostHints> hints;

  TaskSpec() = default;
  explicit TaskSpec(std::string task_name) : name(std::move(task_name)) {}

  // On a named spec the setters return it; on a temporary (TaskSpec("x").reads(d)) they return
  // the temporary as an rvalue, so submit() moves it instead of copying.
  TaskSpec& on(ExecutorId executor) &;
  TaskSpec& with_priority(Priority level) &;
  TaskSpec& after(const TaskHandle& task) &;
  TaskSpec& after(const std::vector<TaskHandle>& tasks) &;
  TaskSpec& access(const DataHandle& data, Access mode) &;
  TaskSpec& reads(const DataHandle& data) & { return access(data, Access::read); }
  TaskSpec& writes(const DataHandle& data) & { return access(data, Access::write); }
  TaskSpec& updates(const DataHandle& data) & { return access(data, Access::read_write); }
  TaskSpec& reduces(const DataHandle& data) & { return access(data, Access::reduce); }
  TaskSpec& footprint(std::uint64_t staged_bytes) &;
  // The body only enqueues work on its executor's in-order device queue and hands its completion
  // to that work (complete_when). A task with this promise that follows another on the same
  // single executor then starts once the other's body returned, not once its work finished: the
  // queue runs the two in order, so a dependent kernel is enqueued while its predecessor runs. It
  // still finishes after the predecessor, and fails if the predecessor failed. Ignored for tasks
  // with reduce accesses.
  TaskSpec& in_queue_order() &;
  // The speedup of a device over one CPU core for this task (PATS sorts by it).
  TaskSpec& with_speedup(double speedup) &;
  // The estimated time of this task on an executor of `kind`.
  TaskSpec& with_estimate(ExecutorKind kind, double seconds) &;
  // Hints shared with other tasks (replaces those given so far).
  TaskSpec& with_hints(std::shared_ptr<const CostHints> shared) &;

  TaskSpec&& on(ExecutorId executor) && { return std::move(on(executor)); }
  TaskSpec&& with_priority(Priority level) && { return std::move(with_priority(level)); }
  TaskSpec&& after(const TaskHandle& task) && { return std::move(after(task)); }
  TaskSpec&& after(const std::vector<TaskHandle>& tasks) && { return std::move(after(tasks)); }
  TaskSpec&& access(const DataHandle& data, Access mode) && {
    return std::move(access(data, mode));
  }
  TaskSpec&& reads(const DataHandle& data) && { return std::move(reads(data)); }
  TaskSpec&& writes(const DataHandle& data) && { return std::move(writes(data)); }
  TaskSpec&& updates(const DataHandle& data) && { return std::move(updates(data)); }
  TaskSpec&& reduces(const DataHandle& data) && { return std::move(reduces(data)); }
  TaskSpec&& footprint(std::uint64_t staged_bytes) && { return std::move(footprint(staged_bytes)); }
  TaskSpec&& in_queue_order() && { return std::move(in_queue_order()); }
  TaskSpec&& with_speedup(double speedup) && { return std::move(with_speedup(speedup)); }
  TaskSpec&& with_estimate(ExecutorKind kind, double seconds) && {
    return std::move(with_estimate(kind, seconds));
  }
  TaskSpec&& with_hints(std::shared_ptr<const CostHints> shared) && {
    return std::move(with_hints(std::move(shared)));
  }
};

// Finishes a task whose body handed completion to someone else (an asynchronous device copy,
// a network receive). Exactly one of complete() / fail() must be called.
class DeferredCompletion {
 public:
  DeferredCompletion() = default;
  DeferredCompletion(DeferredCompletion&& other) noexcept : state_(other.state_) {
    other.state_ = nullptr;
  }
  DeferredCompletion& operator=(DeferredCompletion&& other) noexcept;
  DeferredCompletion(const DeferredCompletion&) = delete;
  DeferredCompletion& operator=(const DeferredCompletion&) = delete;
  ~DeferredCompletion();  // fails the task if neither complete() nor fail() was called

  void complete();
  void fail(std::exception_ptr error);

 private:
  friend class TaskContext;
  explicit DeferredCompletion(detail::TaskState* state) : state_(state) {}
  detail::TaskState* state_ = nullptr;
};

// What a running task can reach: its name, worker, runtime, and deferred completion.
class TaskContext {
 public:
  const std::string& name() const;
  Runtime& runtime() const;
  ExecutorId executor() const;
  // The task's id, as the staging hook saw it in StagingRequest::task_id.
  std::uint64_t task_id() const;
  unsigned worker() const { return worker_; }
  // The task finishes when the returned object completes, not when the body returns.
  DeferredCompletion defer_completion();

 private:
  friend class detail::RuntimeCore;
  TaskContext(detail::TaskState* state, unsigned worker) : state_(state), worker_(worker) {}
  detail::TaskState* state_;
  unsigned worker_;
};

}  // namespace strata::runtime
