#pragma once
// RuntimeCore: the life of a task — submitted, dependencies met, staged, queued at its executor,
// run, unstaged, successors released — plus failure propagation, throttling and accounting.

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

#include "data_state.hpp"
#include "ready_pool.hpp"
#include "staging_budget.hpp"
#include "strata/base/config.hpp"
#include "strata/runtime/executor.hpp"
#include "strata/runtime/run_history.hpp"
#include "strata/runtime/run_summary.hpp"
#include "strata/runtime/scheduling_policy.hpp"
#include "strata/runtime/settings.hpp"
#include "strata/runtime/staging.hpp"
#include "strata/runtime/task_observer.hpp"
#include "summary_observer.hpp"
#include "task_state.hpp"
#include "tracer.hpp"

namespace strata::runtime::detail {

class RuntimeCore final : public TaskRunner {
 public:
  static constexpr std::size_t max_executors = 64;

  RuntimeCore(Config config, Runtime& facade);
  ~RuntimeCore() override;

  const Config& config() const { return config_; }
  Runtime& facade() const { return facade_; }

  TaskHandle submit(TaskSpec&& spec, TaskFunction&& body);
  // A task without spec: no dependencies, data, priority or executor choice (no TaskSpec built).
  TaskHandle submit(TaskFunction&& body);
  // The same without a handle: the runtime holds the only reference.
  void spawn(TaskSpec&& spec, TaskFunction&& body);
  void spawn(TaskFunction&& body);
  void post(ExecutorId executor, std::string name, std::function<void()> work);
  std::shared_ptr<DataState> create_data(std::string name, std::uint64_t bytes);
  void wait_all();
  void wait_until_idle();
  void cancel_all();
  void cancel(TaskState* task);
  void wait_for(TaskState* task);
  void add_callback(TaskState* task, std::function<void(const TaskHandle&)> callback);
  // Finishes a task whose body returned or whose deferred completion fired.
  void complete(TaskState* task, std::exception_ptr error);
  // One of a deferred task's two parts (its body, its completion) is done; the last finishes it.
  void arrive(TaskState* task);

  ExecutorId add_executor(std::unique_ptr<Executor> executor);
  Executor& executor(ExecutorId id) const;
  // Idle workers read the hook while the node that owns it unhooks it, hence atomic.
  void set_staging_hook(StagingHook* hook) { hook_.store(hook, std::memory_order_release); }
  StagingHook* hook() const { return hook_.load(std::memory_order_acquire); }
  void limit_staging_bytes(ExecutorId executor, std::uint64_t bytes);
  void set_placement_policy(std::unique_ptr<PlacementPolicy> policy);

  // Tasks submitted and not finished, at the moment submitted_ was read: retired_ is read before
  // and after it, until both reads agree.
  std::uint64_t in_flight() const {
    std::uint64_t retired = retired_.load(std::memory_order_seq_cst);
    while (true) {
      const std::uint64_t submitted = submitted_.load(std::memory_order_seq_cst);
      const std::uint64_t again = retired_.load(std::memory_order_seq_cst);
      if (again == retired) return submitted - retired;
      retired = again;
    }
  }
  RunSummary summary() const;
  Tracer& tracer() { return tracer_; }
  RunHistory& history() { return history_; }
  const char* placement_name() const { return placement_->name(); }
  // Starts the tracer and the observer that gives it every task's span.
  void enable_tracing();
  void add_observer(std::shared_ptr<TaskObserver> observer);
  void remove_observer(const TaskObserver* observer);
  // A steady-clock time as nanoseconds on the trace's time line.
  std::int64_t trace_ns(std::chrono::steady_clock::time_point at) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(at - started_).count();
  }
  void write_trace(const std::string& path) const;

  void run(ReadyTask* task, Executor& executor, unsigned worker) override;
  bool completions_pending() const override {
    return deferred_in_flight_.load(std::memory_order_relaxed) != 0;
  }
  bool pull_ready(const Executor& executor) const override;
  bool pull(Executor& executor, unsigned worker) override;
  // Counts a task whose body handed its completion to a DeferredCompletion, until it finishes.
  void note_deferred() { deferred_in_flight_.fetch_add(1, std::memory_order_relaxed); }

  // Marks a call into the core from a thread the runtime does not own (a deferred completion, a
  // staging callback) so that shutdown waits until the call has left the core.
  class ExternalCall {
   public:
    explicit ExternalCall(RuntimeCore& core) : core_(core) {
      core_.external_calls_.fetch_add(1, std::memory_order_acq_rel);
    }
    ~ExternalCall() { core_.external_calls_.fetch_sub(1, std::memory_order_acq_rel); }
    ExternalCall(const ExternalCall&) = delete;
    ExternalCall& operator=(const ExternalCall&) = delete;

   private:
    RuntimeCore& core_;
  };

 private:
  void throttle_submission();
  // Runs `wait` (which blocks the calling thread) inside a task on an executor with stand-ins:
  // another thread serves the task's worker meanwhile, and the task lends its staging budget.
  template <class Wait>
  void block_inside_task(Wait wait);
  bool over_task_limit();
  // Counts one task as submitted / as finished (waking throttled submitters and idle waiters).
  void count_submitted() { submitted_.fetch_add(1, std::memory_order_seq_cst); }
  void retire();
  // A record for a task in flight on the CPU pool, with its id and body, referenced by the
  // runtime and, when `with_handle`, by the handle about to be returned.
  TaskState* new_task(TaskFunction&& body, bool with_handle);
  // Creates and registers a task; returns it, with a reference for the handle, when
  // `with_handle`, else nullptr (the task may have finished and been recycled already).
  TaskState* start(TaskSpec&& spec, TaskFunction&& body, bool with_handle);
  TaskState* start(TaskFunction&& body, bool with_handle);
  // `overwrites`: the successor only writes data the predecessor touched (see AccessOrder).
  void add_edge(TaskState* predecessor, TaskState* successor, bool overwrites = false);
  // A queue-ordered task's body returned with its work enqueued: its queue successors may start.
  void enqueued(TaskState* task);
  // A queue predecessor of `successor` finished (with `cause` if it did not succeed).
  void release_hold(TaskState* successor, const std::shared_ptr<const FailureRecord>& cause);
  void register_accesses(TaskState* task, std::vector<DataAccess>& accesses);
  void make_ready(TaskState* task);
  // Chooses the executor of a task with several candidates (push), or pools it for its
  // candidates to pull: returns true if pooled.
  bool place(TaskState* task);
  // Admits a task whose executor is chosen against its staging budget, then stages it.
  void admit_and_stage(TaskState* task);
  // A pulled task started or finished: its executor may pull again.
  void end_pull(TaskState* task);
  // Finishes pooled tasks that were cancelled (explicitly, or because the run failed).
  void sweep_pool();
  ExecutorView view_of(std::uint32_t executor) const;
  void stage(TaskState* task);
  void dispatch(TaskState* task);
  // Takes the gates of all of the task's reduce accesses, or none: then, if `queue_if_held`,
  // the task is dispatched again once a gate it waits for frees.
  bool acquire_reduce_gates(TaskState* task, bool queue_if_held = true);
  void release_reduce_gates(TaskState* task);
  void unstage(TaskState* task);
  // Fails a task whose body threw (or whose deferred completion failed) with `error`.
  void fail(TaskState* task, std::exception_ptr error);
  void finish(TaskState* task, TaskStatus status, std::shared_ptr<const FailureRecord> failure);
  void finish_one(TaskState* task, TaskStatus status, std::shared_ptr<const FailureRecord> failure);
  // Whether `executor` is registered with this runtime.
  bool owns(const Executor* executor) const {
    const std::uint32_t index = executor->id().index;
    return index < executor_count_.load(std::memory_order_acquire) &&
           executors_[index].get() == executor;
  }
  bool should_cancel(const TaskState* task) const;
  void note_failure(const std::shared_ptr<const FailureRecord>& failure);
  // Whether a wait_all() has collected `failure` (it ended before that call returned).
  bool collected(const FailureRecord& failure) const {
    return failure.collection < collections_.load(std::memory_order_acquire);
  }
  // Records that `dependent` did not run because of the collected failure `cause`.
  void report_again(const FailureRecord& cause, const std::string& dependent);
  StagingRequest staging_request(const TaskState* task) const;
  std::int64_t now_ns() const;

  Config config_;
  const RuntimeSettings settings_;  // config_'s runtime section, read without a lookup
  Runtime& facade_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  std::array<std::unique_ptr<Executor>, max_executors> executors_;
  std::array<std::unique_ptr<StagingBudget>, max_executors> budgets_;
  std::atomic<std::uint32_t> executor_count_{0};
  std::mutex executors_lock_;
  ExecutorId cpu_;
  std::unique_ptr<PlacementPolicy> placement_;
  RunHistory history_;
  std::atomic<StagingHook*> hook_{nullptr};
  ReadyPool pool_;  // multi-candidate tasks under a pulling policy
  // Per executor: tasks it pulled that have not started yet, or whose kernel runs on after the
  // body returned (it pulls at most one per worker): a device takes its next pooled task once
  // its last kernel ended.
  std::array<std::atomic<std::uint32_t>, max_executors> pulled_pending_{};

  SpinLock registration_lock_;  // serializes access registration: one submission order
  // Counters written per task sit on cache lines of their own, apart from what is only read.
  alignas(64) std::atomic<std::uint64_t> next_task_id_{1};
  std::atomic<std::uint64_t> next_data_id_{1};

  // Throttling and idleness. Tasks in flight are counted as two counters on lines of their own,
  // submitted (written by submitters) and retired (by the threads that finish tasks), so that a
  // task's trip moves neither line between the submitting thread and the workers: a single
  // in-flight count, raised by one and lowered by the other, cost a cache miss on each side.
  alignas(64) std::atomic<std::uint64_t> submitted_{0};
  // A value retired_ had (so submitted_ - retired_seen_ bounds in_flight() from above): the
  // throttle compares against it and reads retired_ only when the bound reaches the limit.
  std::atomic<std::uint64_t> retired_seen_{0};
  alignas(64) std::atomic<std::uint64_t> retired_{0};
  alignas(64) std::uint64_t resume_below_ =
      0;  // submitters waiting resume once in_flight drops here
  std::atomic<std::uint32_t> throttled_{0};
  std::atomic<std::uint32_t> throttle_epoch_{0};
  std::atomic<std::uint32_t> idle_waiters_{0};
  std::atomic<std::uint32_t> idle_epoch_{0};
  std::atomic<std::uint32_t> external_calls_{0};
  std::atomic<std::uint32_t> deferred_in_flight_{0};  // see note_deferred()

  // Failure and cancellation: tasks with id below cancel_below_ that have not started are skipped.
  std::atomic<std::uint64_t> cancel_below_{0};
  std::mutex failure_lock_;
  std::shared_ptr<const FailureRecord> first_failure_;
  std::atomic<std::uint64_t> collections_{0};  // wait_all() calls that collected failures

  // The run summary's observer, told of every finished task ahead of the others.
  SummaryObserver summary_observer_{[this](const Executor* executor) { return owns(executor); }};
  alignas(64) Tracer tracer_;
  // Observers, replaced whole under observers_lock_ and read without it; `observing_` spares the
  // read (an atomic shared_ptr load) to runs without observers.
  using Observers = std::vector<std::shared_ptr<TaskObserver>>;
  std::atomic<bool> observing_{false};
  std::atomic<std::shared_ptr<const Observers>> observers_;
  std::mutex observers_lock_;
  std::shared_ptr<TaskObserver> trace_observer_;  // set once tracing is enabled
};

}  // namespace strata::runtime::detail
