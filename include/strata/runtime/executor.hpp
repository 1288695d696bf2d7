#pragma once
// Executors: the thread(s) that run one resource's ready tasks (CPU pool, I/O pool, and the
// device queues and network that later layers add). Unlike work never blocks each other.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/runtime/executor_kind.hpp"
#include "strata/runtime/task.hpp"

namespace strata::runtime {

namespace detail {
class RuntimeCore;
}  // namespace detail

// A task whose dependencies are met and whose data is staged, handed to an executor.
using ReadyTask = detail::TaskState;
Priority priority_of(const ReadyTask& task);

class Executor;

// Runs a ready task on the calling thread; implemented by the runtime.
class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  virtual void run(ReadyTask* task, Executor& executor, unsigned worker) = 0;
  // Whether tasks wait for completions that arrive from outside any worker (transfers, device
  // kernels): each one that arrives readies work, so an idle worker may keep watching for it.
  virtual bool completions_pending() const { return false; }
  // Under a pulling placement policy (PlacementPolicy::pulls()), tasks that may run on several
  // executors wait in a shared pool until an idle worker of one of them takes one. An executor
  // that pulls (Executor::pulls()) asks pull_ready() whenever it looks for work, and calls
  // pull() when its own queue is empty: the policy picks one pooled task, which is then staged
  // and enqueued on `executor` (returns whether one was taken). A pulled task whose completion
  // is deferred holds its worker's place until it finishes.
  virtual bool pull_ready(const Executor& /*executor*/) const { return false; }
  virtual bool pull(Executor& /*executor*/, unsigned /*worker*/) { return false; }
};

// Per-worker counters an executor keeps for the utilization summary.
struct alignas(64) WorkerCounters {
  std::atomic<std::uint64_t> busy_ns{0};  // closed busy periods (or, per task, task run times)
  std::atomic<std::uint64_t> tasks{0};
  std::atomic<std::uint64_t> busy_since_ns{0};  // start of the open busy period, 0 if none
  std::atomic<std::uint32_t> version{0};        // odd while a busy period opens or closes
  std::atomic<std::uint64_t> succeeded{0};      // tasks of this executor that succeeded here
};

// Base of every executor. A subclass owns its threads (or device queues) and calls
// runner().run(task, *this, worker) for each task it takes.
class Executor {
 public:
  Executor(std::string name, unsigned workers, ExecutorKind kind = ExecutorKind::cpu,
           std::string device = {});
  virtual ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const std::string& name() const { return name_; }
  unsigned worker_count() const { return static_cast<unsigned>(counters_.size()); }
  // The resource it drives, and the device's name for device executors (else empty).
  ExecutorKind kind() const { return kind_; }
  const std::string& device() const { return device_; }
  // Declares the resource; only before the executor is registered with a runtime.
  void set_kind(ExecutorKind kind, std::string device = {}) {
    kind_ = kind;
    device_ = std::move(device);
  }
  // Its index in the runtime it is registered with.
  ExecutorId id() const { return id_; }
  WorkerCounters& counters(unsigned worker) { return counters_[worker]; }
  const WorkerCounters& counters(unsigned worker) const { return counters_[worker]; }

  // Starts the workers; called once by the runtime when the executor is registered.
  virtual void start(TaskRunner& runner) = 0;
  // Takes a ready task; never blocks on execution.
  virtual void enqueue(ReadyTask* task) = 0;
  // Ready tasks waiting for a worker (used by placement policies).
  virtual std::size_t queued() const = 0;
  // Runs one queued task on the calling thread, which is this executor's `worker`; false if
  // none was queued. A task that waits on an executor without stand-ins (stands_in()) keeps its
  // worker busy this way, nested on its own stack: only safe where tasks never wait themselves.
  virtual bool run_one(unsigned worker) = 0;
  // Whether another thread can serve a worker while a task on it blocks in a wait: the runtime
  // then calls suspend_worker() before the blocking wait and resume_worker() after it.
  virtual bool stands_in() const { return false; }
  // Called on the thread serving `worker`, inside a task about to block: another thread serves
  // `worker` until this one calls resume_worker(). The calling thread may not touch the
  // executor's queues in between.
  virtual void suspend_worker(unsigned /*worker*/) {}
  // Called by a thread that suspended `worker`, once its wait is over: returns when the thread
  // serves `worker` again (the stand-in gives it back between two of its tasks).
  virtual void resume_worker(unsigned /*worker*/) {}
  // Threads that have served this executor so far (trace lanes): stand-ins add to the workers.
  virtual unsigned lane_count() const { return worker_count(); }
  // Stops the workers after the queue drained; called once at runtime shutdown.
  virtual void stop() = 0;
  // Whether the staging budget bounds how far ahead this executor's tasks are staged. The
  // network's are not: a staged receive waits for a peer, so a full window of them would keep
  // back the sends the peers wait for.
  virtual bool bounded_lookahead() const { return true; }
  // Whether its idle workers take tasks from the runtime's shared pool (TaskRunner::pull()); an
  // executor that does not pull is given tasks by the placement policy's choose() only.
  virtual bool pulls() const { return false; }
  // The runtime pooled a task this executor may take: an idle worker should look (pulls() only).
  virtual void notify_work() {}

  // Busy time of `worker` so far, including a busy period still open.
  std::uint64_t busy_ns(unsigned worker) const;
  // Whether this executor accounts busy time per busy period (begin_busy / end_busy); if not,
  // the runtime times every task it runs here.
  bool accounts_busy_periods() const { return busy_periods_; }
  // Nanoseconds on the steady clock, the time base of busy periods.
  static std::uint64_t now_ns();

 protected:
  // For executors whose workers run tasks back to back: timing periods instead of single tasks
  // spares the runtime two clock reads per task. Call once, from the constructor.
  void account_busy_periods() { busy_periods_ = true; }
  void begin_busy(unsigned worker, std::uint64_t now);
  void end_busy(unsigned worker, std::uint64_t now);

 private:
  friend class detail::RuntimeCore;
  std::string name_;
  std::vector<WorkerCounters> counters_;
  bool busy_periods_ = false;
  ExecutorKind kind_;
  std::string device_;
  ExecutorId id_;  // set by the runtime when registered
};

// Which executor worker the calling thread is, if any.
struct WorkerIdentity {
  Executor* executor = nullptr;
  unsigned worker = 0;
  // The thread's own index in its executor (its trace lane): equal to `worker` for the threads
  // an executor starts with; a stand-in serves some worker from a lane of its own.
  unsigned lane = 0;
  // Set by the runtime while this worker finishes a task: the worker takes its next task right
  // after, so an executor need not wake another worker for the one task it readies then.
  bool finishing = false;
};
WorkerIdentity& current_worker();

}  // namespace strata::runtime
