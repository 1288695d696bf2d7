#include "runtime_core.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <thread>
#include <utility>

#include "access_lists.hpp"
#include "strata/base/error.hpp"
#include "strata/base/log.hpp"
#include "strata/base/settings.hpp"
#include "strata/runtime/thread_pool_executor.hpp"

namespace strata::runtime::detail {
namespace {

// The name of a task submitted without a spec: TaskSpec's default name.
constexpr std::string_view plain_task_name = "task";

void raise_to_at_least(std::atomic<std::uint64_t>& value, std::uint64_t floor) {
  std::uint64_t current = value.load(std::memory_order_acquire);
  while (current < floor && !value.compare_exchange_weak(current, floor)) {
  }
}

// A failure outranks a cancellation: a task after both a failed and a (consequently) cancelled
// predecessor fails naming the failed one, whichever of the two finished first.
void poison(TaskState* task, const std::shared_ptr<const FailureRecord>& cause) {
  std::lock_guard guard(task->lock);
  if (!task->failure || (cause && task->failure->cancelled && !cause->cancelled))
    task->failure = cause;
}

// Whether `successor` follows `predecessor` in queue order (TaskSpec::in_queue_order()): both
// promise to use only their executor's in-order queue, and it is the same executor.
// A reader group (barrier) as a successor is never one: readers may still join it, so its fields
// are read only once it ended (as a predecessor, it is queue-ordered when all its readers are).
bool follows_in_queue(const TaskState* predecessor, const TaskState* successor) {
  return !successor->barrier && successor->queue_ordered && predecessor->queue_ordered &&
         successor->executor == predecessor->executor;
}

Access merge(Access a, Access b) {
  return a == b ? a : Access::read_write;
}

// Waits with growing pauses while `done` is false, running other work of `me` meanwhile: for
// executors without stand-ins (their tasks never wait themselves, so nesting them is safe).
template <class Done>
void help_until(const WorkerIdentity& me, Done done) {
  int idle = 0;
  while (!done()) {
    if (me.executor->run_one(me.worker)) {
      idle = 0;
    } else if (++idle < 64) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 20 * (idle - 63))));
    }
  }
}

// The task the calling thread runs, if any.
thread_local TaskState* running_task = nullptr;

// How long a task inside a wait for room under max_tasks_in_flight waits for some task to finish
// before it submits anyway (everything in flight may depend on it).
constexpr auto throttle_patience = std::chrono::milliseconds(2);

}  // namespace

RuntimeCore::RuntimeCore(Config config, Runtime& facade)
    : config_(std::move(config)), settings_(config_.section<RuntimeSettings>()), facade_(facade) {
  set_log_level(config_.section<BaseSettings>().log_level);
  const std::uint64_t max = settings_.max_tasks_in_flight;
  resume_below_ = max - std::max<std::uint64_t>(1, max / 8);
  placement_ =
      make_placement_policy(settings_.placement, settings_.transfer_impact_percent / 100.0);
  if (!settings_.history.empty()) history_.load(settings_.history);
  if (!settings_.trace.empty()) enable_tracing();
  cpu_ = add_executor(std::make_unique<ThreadPoolExecutor>(
      "cpu", settings_.effective_cpu_threads(), make_work_stealing_policy(),
      ThreadPoolExecutor::IdleSpin::while_completions_pending));
  auto io =
      std::make_unique<ThreadPoolExecutor>("io", settings_.io_threads, make_priority_fifo_policy());
  io->set_kind(ExecutorKind::io);
  add_executor(std::move(io));
}

RuntimeCore::~RuntimeCore() {
  wait_until_idle();
  while (external_calls_.load(std::memory_order_acquire) != 0)
    std::this_thread::yield();
  {
    std::lock_guard guard(failure_lock_);
    if (first_failure_) {
      log().error("runtime shut down with an uncollected failure: task '{}' failed: {}",
                  first_failure_->task, describe(first_failure_->error));
    }
  }
  if (!settings_.history.empty() && !history_.empty()) {
    try {
      history_.save(settings_.history);
    } catch (const std::exception& e) {
      log().error("{}", e.what());
    }
  }
  if (!settings_.trace.empty()) {
    try {
      write_trace(settings_.trace);
    } catch (const std::exception& e) {
      log().error("{}", e.what());
    }
  }
  for (std::uint32_t i = executor_count_.load(); i-- > 0;)
    executors_[i]->stop();
}

ExecutorId RuntimeCore::add_executor(std::unique_ptr<Executor> executor) {
  std::lock_guard guard(executors_lock_);
  const std::uint32_t index = executor_count_.load();
  if (index == max_executors) {
    throw Error(fmt::format("cannot add executor '{}': a runtime holds at most {} executors",
                            executor->name(), max_executors));
  }
  budgets_[index] =
      std::make_unique<StagingBudget>(settings_.staging_max_bytes, settings_.staging_max_tasks);
  executor->id_ = ExecutorId{index};
  executor->start(*this);
  executors_[index] = std::move(executor);
  executor_count_.store(index + 1, std::memory_order_release);
  return ExecutorId{index};
}

void RuntimeCore::limit_staging_bytes(ExecutorId id, std::uint64_t bytes) {
  executor(id);  // throws for an unknown executor
  budgets_[id.index]->limit_bytes(bytes);
}

Executor& RuntimeCore::executor(ExecutorId id) const {
  if (id.index >= executor_count_.load(std::memory_order_acquire)) {
    throw Error(fmt::format("no executor with index {} (this runtime has {})", id.index,
                            executor_count_.load()));
  }
  return *executors_[id.index];
}

void RuntimeCore::set_placement_policy(std::unique_ptr<PlacementPolicy> policy) {
  placement_ = policy ? std::move(policy) : make_least_loaded_placement();
}

std::shared_ptr<DataState> RuntimeCore::create_data(std::string name, std::uint64_t bytes) {
  return std::make_shared<DataState>(std::move(name), bytes, next_data_id_.fetch_add(1));
}

std::int64_t RuntimeCore::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              started_)
      .count();
}

// ---------------------------------------------------------------------------------------------
// Submission

bool RuntimeCore::over_task_limit() {
  const std::uint64_t submitted = submitted_.load(std::memory_order_relaxed);
  if (submitted - retired_seen_.load(std::memory_order_relaxed) < settings_.max_tasks_in_flight) {
    return false;
  }
  const std::uint64_t retired = retired_.load(std::memory_order_relaxed);
  retired_seen_.store(retired, std::memory_order_relaxed);
  return submitted - retired >= settings_.max_tasks_in_flight;
}

void RuntimeCore::throttle_submission() {
  if (!over_task_limit()) return;
  const WorkerIdentity& me = current_worker();
  if (me.executor != nullptr && !me.executor->stands_in()) {
    // Inside a task: run other work until there is room, but never wait for work that cannot
    // run (its tasks may depend on this one); then submit anyway.
    while (over_task_limit() && me.executor->run_one(me.worker)) {
    }
    return;
  }
  if (me.executor != nullptr) {
    // Inside a task: wait for room while tasks keep finishing; if none finishes for a while,
    // everything in flight may wait for this task, so it submits anyway, and keeps submitting
    // without waiting until some task finished.
    thread_local std::uint64_t gave_up_at = ~std::uint64_t{0};
    if (retired_.load(std::memory_order_relaxed) == gave_up_at) return;
    block_inside_task([this] {
      std::uint64_t retired = retired_.load(std::memory_order_relaxed);
      auto last_progress = std::chrono::steady_clock::now();
      while (in_flight() > resume_below_) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        const std::uint64_t now_retired = retired_.load(std::memory_order_relaxed);
        const auto now = std::chrono::steady_clock::now();
        if (now_retired != retired) {
          retired = now_retired;
          last_progress = now;
        } else if (now - last_progress > throttle_patience) {
          gave_up_at = retired;
          break;
        }
      }
    });
    return;
  }
  throttled_.fetch_add(1, std::memory_order_seq_cst);
  while (true) {
    const std::uint32_t epoch = throttle_epoch_.load(std::memory_order_seq_cst);
    if (in_flight() <= resume_below_) break;
    throttle_epoch_.wait(epoch, std::memory_order_seq_cst);
  }
  throttled_.fetch_sub(1, std::memory_order_seq_cst);
}

TaskState* RuntimeCore::new_task(TaskFunction&& body, bool with_handle) {
  TaskState* task = TaskState::create();
  task->runtime = this;
  task->id = next_task_id_.fetch_add(1, std::memory_order_relaxed);
  task->body = std::move(body);
  task->executor = cpu_;
  // The record is not shared yet: the in-flight reference and the handle's, if one is returned.
  task->references.store(with_handle ? 2 : 1, std::memory_order_relaxed);
  count_submitted();
  return task;
}

TaskHandle RuntimeCore::submit(TaskFunction&& body) {
  return TaskHandle(start(std::move(body), true));
}

void RuntimeCore::spawn(TaskFunction&& body) {
  start(std::move(body), false);
}

TaskHandle RuntimeCore::submit(TaskSpec&& spec, TaskFunction&& body) {
  return TaskHandle(start(std::move(spec), std::move(body), true));
}

void RuntimeCore::spawn(TaskSpec&& spec, TaskFunction&& body) {
  start(std::move(spec), std::move(body), false);
}

TaskState* RuntimeCore::start(TaskFunction&& body, bool with_handle) {
  if (!body) throw Error("task 'task' was submitted without a body");
  throttle_submission();
  TaskState* task = new_task(std::move(body), with_handle);
  task->name.assign(plain_task_name);
  task->unmet.store(0, std::memory_order_relaxed);  // no edges
  make_ready(task);
  return with_handle ? task : nullptr;  // without a handle it may be recycled already
}

TaskState* RuntimeCore::start(TaskSpec&& spec, TaskFunction&& body, bool with_handle) {
  if (!body) throw Error(fmt::format("task '{}' was submitted without a body", spec.name));
  const std::uint32_t executors = executor_count_.load(std::memory_order_acquire);
  for (ExecutorId id : spec.executors) {
    if (id.index >= executors) {
      throw Error(fmt::format("task '{}' names executor {}, but this runtime has {}", spec.name,
                              id.index, executors));
    }
  }
  for (const DataAccess& access : spec.accesses) {
    if (!access.data) {
      throw Error(fmt::format("task '{}' declares a {} access to an empty DataHandle", spec.name,
                              to_string(access.mode)));
    }
  }
  throttle_submission();

  TaskState* task = new_task(std::move(body), with_handle);
  task->name = std::move(spec.name);
  task->priority = spec.priority;
  task->bytes = spec.bytes;
  task->footprint_given = spec.bytes != 0;
  if (spec.hints) task->hints = std::move(spec.hints);
  if (!spec.executors.empty()) {
    task->candidates.assign(spec.executors.begin(), spec.executors.end());
    task->executor = task->candidates.front();
  }
  // Set before any edge: add_edge() reads it.
  task->queue_ordered =
      spec.queue_ordered && spec.executors.size() == 1 &&
      std::none_of(spec.accesses.begin(), spec.accesses.end(),
                   [](const DataAccess& access) { return access.mode == Access::reduce; });
  if (spec.predecessors.empty() && spec.accesses.empty()) {
    task->unmet.store(0, std::memory_order_relaxed);  // no edges: no hold while adding them
    make_ready(task);
    return with_handle ? task : nullptr;
  }

  for (const TaskHandle& predecessor : spec.predecessors) {
    if (predecessor.state_ != nullptr) add_edge(predecessor.state_, task);
  }
  if (!spec.accesses.empty()) {
    register_accesses(task, spec.accesses);
    SpareAccessLists::give(std::move(spec.accesses));  // its elements were moved to the task
    if (StagingHook* hook = this->hook(); hook != nullptr) {
      // Before the last hold goes: the task cannot finish (and retire) before it is declared.
      hook->declared(staging_request(task));
      task->hook_declared = true;
    }
  }
  if (task->unmet.fetch_sub(1, std::memory_order_acq_rel) == 1) make_ready(task);
  return with_handle ? task : nullptr;
}

void RuntimeCore::post(ExecutorId executor, std::string name, std::function<void()> work) {
  if (executor.index >= executor_count_.load(std::memory_order_acquire)) {
    throw Error(fmt::format("work '{}' is posted to executor {}, but this runtime has {}", name,
                            executor.index, executor_count_.load()));
  }
  TaskState* task = TaskState::create();
  task->runtime = this;
  task->internal = true;
  task->id = next_task_id_.fetch_add(1, std::memory_order_relaxed);
  task->body = [work = std::move(work), name](TaskContext&) {
    try {
      work();
    } catch (...) {
      log().error("work '{}' posted to the runtime threw: {}", name,
                  describe(std::current_exception()));
    }
  };
  task->name = std::move(name);
  task->executor = executor;
  count_submitted();
  task->unmet.store(0, std::memory_order_relaxed);
  dispatch(task);
}

void RuntimeCore::add_edge(TaskState* predecessor, TaskState* successor, bool overwrites) {
  std::unique_lock guard(predecessor->lock);
  if (predecessor->closed) {
    const TaskStatus status = predecessor->status.load(std::memory_order_acquire);
    auto cause = predecessor->failure;
    guard.unlock();
    // A plain write after a collected failure starts the datum afresh.
    if (status != TaskStatus::succeeded && !(overwrites && collected(*cause))) {
      poison(successor, cause);
    }
    return;
  }
  successor->retain();
  if (predecessor->enqueued && follows_in_queue(predecessor, successor)) {
    // Its work is queued already: the successor waits only for the predecessor's finish.
    successor->finish_holds.fetch_add(1, std::memory_order_relaxed);
  } else {
    successor->unmet.fetch_add(1, std::memory_order_relaxed);
  }
  predecessor->successors.push_back(successor);
}

void RuntimeCore::enqueued(TaskState* task) {
  // What it writes is valid in its queue's order from now on: a queue successor that reads it
  // must find it there, not fetch the stale copy.
  if (task->hook_staged) hook()->enqueued(staging_request(task));
  std::vector<TaskState*> released, groups;
  {
    std::lock_guard guard(task->lock);
    task->enqueued = true;
    for (TaskState* successor : task->successors) {
      // A reader group it belongs to: one reader fewer to enqueue.
      if (successor->barrier) {
        if (successor->enqueue_unmet.fetch_sub(1, std::memory_order_acq_rel) == 1)
          groups.push_back(successor);
        continue;
      }
      if (!follows_in_queue(task, successor)) continue;
      successor->finish_holds.fetch_add(1, std::memory_order_relaxed);
      released.push_back(successor);
    }
  }
  // The task holds a reference to each until it finishes, which it cannot before run() returns;
  // a group waits for this reader to finish.
  for (TaskState* successor : released) {
    if (successor->unmet.fetch_sub(1, std::memory_order_acq_rel) == 1) make_ready(successor);
  }
  for (TaskState* group : groups)
    enqueued(group);
}

void RuntimeCore::release_hold(TaskState* successor,
                               const std::shared_ptr<const FailureRecord>& cause) {
  if (cause) poison(successor, cause);
  // 1 before: the successor's own finish came first and parked; it is this call's to finish.
  if (successor->finish_holds.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    finish(successor, successor->parked_status, nullptr);
  }
}

void RuntimeCore::register_accesses(TaskState* task, std::vector<DataAccess>& accesses) {
  for (DataAccess& access : accesses) {
    auto same = std::find_if(
        task->accesses.begin(), task->accesses.end(),
        [&](const DataAccess& seen) { return seen.data.state_ == access.data.state_; });
    if (same == task->accesses.end()) {
      task->accesses.push_back(std::move(access));
    } else {
      same->mode = merge(same->mode, access.mode);
    }
  }
  const bool sum_bytes = task->bytes == 0;
  for (const DataAccess& access : task->accesses) {
    if (sum_bytes) task->bytes += access.data.state_->bytes;
    if (access.mode == Access::reduce) task->has_reduce = true;
  }
  // Reused: registration never nests while `wait_for` is used; ending a group may finish it and
  // so (through callbacks of failed successors) register tasks, which append to and drain
  // `ended_groups` themselves, so it is drained from the back without clearing it first.
  thread_local AccessOrder order;
  order.wait_for.clear();
  {
    std::lock_guard guard(registration_lock_);
    for (const DataAccess& access : task->accesses) {
      record_access(*access.data.state_, task, access.mode, order);
    }
  }
  for (const AccessOrder::Predecessor& predecessor : order.wait_for) {
    add_edge(predecessor.task, task, predecessor.overwrites);
    predecessor.task->release();
  }
  order.wait_for.clear();
  while (!order.ended_groups.empty()) {
    const auto [group, open_count, by_write] = order.ended_groups.back();
    order.ended_groups.pop_back();
    if (by_write) {
      // Readers that failed before a collection poison nothing a plain write makes afresh (the
      // writer is the group's only successor); a reader failing later still does.
      std::lock_guard guard(group->lock);
      if (group->failure && collected(*group->failure)) group->failure = nullptr;
    }
    // Enqueued (all its readers were) before finished: its queue successors go first.
    if (group->enqueue_unmet.fetch_sub(open_count, std::memory_order_acq_rel) == open_count)
      enqueued(group);
    if (group->unmet.fetch_sub(open_count, std::memory_order_acq_rel) == open_count) {
      make_ready(group);
    }
    group->release();
  }
}

// ---------------------------------------------------------------------------------------------
// Ready -> staged -> queued

bool RuntimeCore::should_cancel(const TaskState* task) const {
  if (task->internal) return false;
  return task->cancel_requested.load(std::memory_order_acquire) ||
         task->id < cancel_below_.load(std::memory_order_acquire);
}

void RuntimeCore::make_ready(TaskState* task) {
  if (task->failure) {
    const bool cancelled = task->failure->cancelled;
    // A task that does not run because of a failure wait_all() already reported is a failure of
    // its own: the next wait_all() reports it.
    if (!cancelled && !task->barrier && !task->internal && collected(*task->failure)) {
      report_again(*task->failure, task->name);
    }
    finish(task, cancelled ? TaskStatus::cancelled : TaskStatus::failed, task->failure);
    return;
  }
  if (task->barrier) {
    finish(task, TaskStatus::succeeded, nullptr);
    return;
  }
  if (should_cancel(task)) {
    std::shared_ptr<const FailureRecord> cause;
    {
      std::lock_guard guard(failure_lock_);
      cause = first_failure_;
    }
    const std::uint64_t collection = collections_.load(std::memory_order_acquire);
    if (cause && task->id < cancel_below_.load()) {
      cause = std::make_shared<FailureRecord>(
          FailureRecord{cause->task, cause->task_id, cause->error, true, collection, {}});
    } else {
      cause = std::make_shared<FailureRecord>(
          FailureRecord{task->name, task->id, nullptr, true, collection, {}});
    }
    finish(task, TaskStatus::cancelled, cause);
    return;
  }
  if (task->candidates.size() > 1 && place(task)) return;  // pooled: a candidate pulls it
  admit_and_stage(task);
}

void RuntimeCore::admit_and_stage(TaskState* task) {
  if (task->bytes > 0 && executors_[task->executor.index]->bounded_lookahead()) {
    if (!budgets_[task->executor.index]->try_admit(task)) return;  // staged when budget frees
    task->staged = true;
  }
  stage(task);
}

ExecutorView RuntimeCore::view_of(std::uint32_t index) const {
  const Executor& executor = *executors_[index];
  const ExecutorId id{index};
  const StagingHook* hook = this->hook();
  return ExecutorView{id,
                      executor.kind(),
                      executor.name(),
                      executor.device(),
                      hook != nullptr ? hook->memory_space(id) : std::nullopt,
                      executor.queued(),
                      executor.worker_count()};
}

bool RuntimeCore::place(TaskState* task) {
  PlacementPolicy& policy = *placement_;
  if (policy.pulls()) {
    // The pulling candidates, noted before the task is pooled: once pooled it may be taken, run
    // and recycled at any moment.
    std::array<Executor*, max_executors> pullers;
    std::size_t count = 0;
    for (ExecutorId id : task->candidates) {
      Executor* candidate = executors_[id.index].get();
      if (candidate->pulls() && count < pullers.size()) pullers[count++] = candidate;
    }
    if (count != 0) {
      pool_.add(task);
      // Counted before the wake-ups: an idle worker announces itself, then looks at the pool.
      for (std::size_t i = 0; i < count; ++i)
        pullers[i]->notify_work();
      return true;
    }
  }
  thread_local std::vector<ExecutorView> candidates;
  candidates.clear();
  for (ExecutorId id : task->candidates)
    candidates.push_back(view_of(id.index));
  const std::size_t chosen = policy.choose(TaskView(*task, hook()), candidates);
  task->executor = task->candidates[chosen < candidates.size() ? chosen : 0];
  return false;
}

bool RuntimeCore::pull_ready(const Executor& executor) const {
  const std::uint32_t index = executor.id().index;
  return pool_.has_work_for(index) &&
         pulled_pending_[index].load(std::memory_order_seq_cst) < executor.worker_count();
}

bool RuntimeCore::pull(Executor& executor, unsigned /*worker*/) {
  const std::uint32_t index = executor.id().index;
  if (!pull_ready(executor)) return false;
  std::vector<TaskState*> cancelled;  // allocates only when some were
  TaskState* task = pool_.take(
      index, [this, index] { return view_of(index); }, *placement_, hook(),
      [this](const TaskState* pooled) { return should_cancel(pooled); }, cancelled);
  for (TaskState* gone : cancelled)
    make_ready(gone);  // finishes it cancelled
  if (task == nullptr) return !cancelled.empty();
  task->executor = ExecutorId{index};
  task->pulled = true;
  pulled_pending_[index].fetch_add(1, std::memory_order_seq_cst);
  // From one of its own workers, the executor's queue gets the task without waking another
  // worker: the puller takes it next.
  WorkerIdentity& me = current_worker();
  const bool was_finishing = std::exchange(me.finishing, me.executor == &executor);
  admit_and_stage(task);
  me.finishing = was_finishing;
  return true;
}

void RuntimeCore::end_pull(TaskState* task) {
  task->pulled = false;
  const std::uint32_t index = task->executor.index;
  pulled_pending_[index].fetch_sub(1, std::memory_order_seq_cst);
  if (pool_.has_work_for(index)) executors_[index]->notify_work();
}

void RuntimeCore::sweep_pool() {
  if (pool_.empty()) return;
  std::vector<TaskState*> cancelled;
  pool_.drop_if([this](const TaskState* pooled) { return should_cancel(pooled); }, cancelled);
  for (TaskState* gone : cancelled)
    make_ready(gone);
}

StagingRequest RuntimeCore::staging_request(const TaskState* task) const {
  return StagingRequest{task->id, task->name, task->executor, task->accesses, task->bytes};
}

void RuntimeCore::stage(TaskState* task) {
  if (hook() == nullptr || task->accesses.empty()) {
    dispatch(task);
    return;
  }
  hook()->stage(staging_request(task), [this, task](std::exception_ptr error) {
    const ExternalCall call(*this);
    if (error) {
      complete(task, std::move(error));
      return;
    }
    task->hook_staged = true;
    dispatch(task);
  });
}

void RuntimeCore::dispatch(TaskState* task) {
  if (task->has_reduce && !acquire_reduce_gates(task)) return;  // again when a gate frees
  executors_[task->executor.index]->enqueue(task);
}

bool RuntimeCore::acquire_reduce_gates(TaskState* task, bool queue_if_held) {
  std::vector<DataState*> gates;
  for (const DataAccess& access : task->accesses) {
    if (access.mode == Access::reduce) gates.push_back(access.data.state_.get());
  }
  if (gates.empty()) return true;
  std::sort(gates.begin(), gates.end(),
            [](const DataState* a, const DataState* b) { return a->id < b->id; });
  for (std::size_t i = 0; i < gates.size(); ++i) {
    std::unique_lock guard(gates[i]->gate_lock);
    if (gates[i]->gate_holder == nullptr) {
      gates[i]->gate_holder = task;
      continue;
    }
    if (queue_if_held) gates[i]->wait_at_gate(task);
    guard.unlock();
    for (std::size_t held = 0; held < i; ++held) {
      TaskState* next = nullptr;
      {
        std::lock_guard release_guard(gates[held]->gate_lock);
        gates[held]->gate_holder = nullptr;
        next = gates[held]->next_at_gate();
      }
      if (next != nullptr) dispatch(next);
    }
    return false;
  }
  task->holds_gates = true;
  return true;
}

void RuntimeCore::release_reduce_gates(TaskState* task) {
  task->holds_gates = false;
  for (const DataAccess& access : task->accesses) {
    if (access.mode != Access::reduce) continue;
    DataState& data = *access.data.state_;
    TaskState* next = nullptr;
    {
      std::lock_guard guard(data.gate_lock);
      data.gate_holder = nullptr;
      next = data.next_at_gate();
    }
    if (next != nullptr) dispatch(next);
  }
}

// ---------------------------------------------------------------------------------------------
// Running and finishing

void RuntimeCore::run(ReadyTask* task, Executor& executor, unsigned worker) {
  thread_local int nesting = 0;
  // A pulled task frees its executor's pull slot while its body runs (a body may wait for other
  // tasks that this executor must pull); a deferred one takes the slot again below.
  const bool pulled = task->pulled;
  if (pulled) end_pull(task);
  if (should_cancel(task)) {
    make_ready(task);  // takes the cancellation path and finishes the task
    return;
  }
  task->status.store(TaskStatus::running, std::memory_order_release);
  std::exception_ptr error;
  TaskContext context(task, worker);
  // Executors that time busy periods spare the clock reads here, unless a trace wants spans.
  const bool per_task = !executor.accounts_busy_periods();
  const bool observing = observing_.load(std::memory_order_relaxed);
  const std::int64_t start = per_task || observing ? now_ns() : 0;
  ++nesting;
  TaskState* const outer = std::exchange(running_task, task);
  try {
    task->body(context);
  } catch (...) {
    error = std::current_exception();
  }
  running_task = outer;
  --nesting;
  const std::int64_t end = per_task || observing ? now_ns() : 0;
  WorkerCounters& counters = executor.counters(worker);
  if (per_task && nesting == 0) {
    counters.busy_ns.fetch_add(static_cast<std::uint64_t>(end - start), std::memory_order_relaxed);
  }
  counters.tasks.store(counters.tasks.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);  // only this worker writes it
  if (observing) {
    // A thread's spans nest properly; a worker's do not once a stand-in served it.
    const WorkerIdentity& me = current_worker();
    const TaskRun ran{task->name,
                      task->id,
                      task->executor,
                      worker,
                      me.executor == &executor ? me.lane : worker,
                      start,
                      end,
                      task->bytes,
                      task->priority,
                      static_cast<std::uint32_t>(task->candidates.size()),
                      task->candidates.size() > 1 ? placement_->name() : nullptr,
                      task->hints.get()};
    if (const auto observers = observers_.load(std::memory_order_acquire)) {
      for (const auto& observer : *observers)
        observer->on_run(ran);
    }
  }
  task->body.reset();
  if (!task->deferred) {
    WorkerIdentity& me = current_worker();
    const bool was_finishing = std::exchange(me.finishing, me.executor == &executor);
    // Without a deferred completion nobody else completes the task: no guard is needed.
    task->completed.store(true, std::memory_order_relaxed);
    if (error) {
      fail(task, std::move(error));
    } else {
      finish(task, TaskStatus::succeeded, nullptr);
    }
    me.finishing = was_finishing;
    return;
  }
  // The completion may already have fired on another thread; the reference taken by
  // defer_completion() kept the task alive until here.
  if (pulled && !error) {
    // Its work (a kernel) runs on after the body returned: the executor is busy and pulls its
    // next pooled task once this one finishes (finish_one ends the pull). The task cannot have
    // finished yet: its body's part arrives below.
    task->pulled = true;
    pulled_pending_[task->executor.index].fetch_add(1, std::memory_order_seq_cst);
  }
  if (error) {
    complete(task, std::move(error));
  } else if (task->queue_ordered) {
    enqueued(task);
  }
  arrive(task);
  task->release();
}

void RuntimeCore::complete(TaskState* task, std::exception_ptr error) {
  if (task->completed.exchange(true, std::memory_order_acq_rel)) return;
  if (task->deferred) {
    task->deferred_error = std::move(error);
    arrive(task);
    return;
  }
  if (!error) {
    finish(task, TaskStatus::succeeded, nullptr);
    return;
  }
  fail(task, std::move(error));
}

void RuntimeCore::arrive(TaskState* task) {
  if (task->deferred_parts.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (!task->deferred_error) {
    finish(task, TaskStatus::succeeded, nullptr);
    return;
  }
  fail(task, std::exchange(task->deferred_error, nullptr));
}

void RuntimeCore::fail(TaskState* task, std::exception_ptr error) {
  auto failure = std::make_shared<const FailureRecord>(FailureRecord{
      task->name, task->id, error, false, collections_.load(std::memory_order_acquire), {}});
  log().debug("task '{}' failed: {}", task->name, describe(error));
  note_failure(failure);
  finish(task, TaskStatus::failed, failure);
}

void RuntimeCore::report_again(const FailureRecord& cause, const std::string& dependent) {
  auto failure = std::make_shared<const FailureRecord>(
      FailureRecord{cause.task, cause.task_id, cause.error, false,
                    collections_.load(std::memory_order_acquire), dependent});
  std::lock_guard guard(failure_lock_);
  if (!first_failure_) first_failure_ = std::move(failure);
}

void RuntimeCore::note_failure(const std::shared_ptr<const FailureRecord>& failure) {
  {
    std::lock_guard guard(failure_lock_);
    if (!first_failure_) first_failure_ = failure;
  }
  // The run failed: tasks submitted so far that have not started are cancelled.
  raise_to_at_least(cancel_below_, next_task_id_.load());
  sweep_pool();
}

void RuntimeCore::finish(TaskState* task, TaskStatus status,
                         std::shared_ptr<const FailureRecord> failure) {
  // Finishing a task can finish its cancelled dependents; a worklist keeps the stack flat.
  struct Pending {
    TaskState* task;
    TaskStatus status;
    std::shared_ptr<const FailureRecord> failure;
  };
  thread_local std::vector<Pending> pending;
  thread_local bool draining = false;
  if (draining) {
    pending.push_back({task, status, std::move(failure)});
    return;
  }
  draining = true;
  finish_one(task, status, std::move(failure));
  while (!pending.empty()) {
    Pending next = std::move(pending.back());
    pending.pop_back();
    finish_one(next.task, next.status, std::move(next.failure));
  }
  draining = false;
}

void RuntimeCore::unstage(TaskState* task) {
  if (task->holds_gates) release_reduce_gates(task);
  if (task->hook_staged) {
    task->hook_staged = false;
    hook()->unstage(staging_request(task));
  }
  if (task->hook_declared) {
    task->hook_declared = false;
    hook()->retired(staging_request(task));
  }
  if (task->staged) {
    task->staged = false;
    for (TaskState* admitted : budgets_[task->executor.index]->release(task)) {
      admitted->staged = true;
      stage(admitted);
    }
  }
}

void RuntimeCore::finish_one(TaskState* task, TaskStatus status,
                             std::shared_ptr<const FailureRecord> failure) {
  if (task->finish_holds.load(std::memory_order_acquire) > 1) {
    // Queue predecessors have not finished: the last of them finishes this task (release_hold).
    task->parked_status = status;
    if (failure) {
      std::lock_guard guard(task->lock);
      task->failure = std::move(failure);  // its own failure outranks an inherited one
    }
    if (task->finish_holds.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  }
  if (task->pulled) end_pull(task);  // not started, or deferred: its executor may pull the next
  unstage(task);
  // A task that failed or was cancelled before it ran still holds its body: what the body
  // captured (handles of other tasks and data) must not outlive it. The body of a task that ran
  // is run()'s to release: a deferred completion may finish the task here, on another thread,
  // while run() still holds the body.
  if (task->status.load(std::memory_order_acquire) != TaskStatus::running) task->body.reset();
  // Observers hear of the finish before any successor may start: before the task is closed (a
  // task submitted after that no longer waits for it) and its successors are released.
  const bool observed =
      !task->internal && !task->barrier && observing_.load(std::memory_order_relaxed);
  const auto close = [&] {
    task->status.store(status, std::memory_order_release);
    task->closed = true;
  };
  {
    std::lock_guard guard(task->lock);
    if (failure) task->failure = std::move(failure);
    // A task that ran is poisoned only by a queue predecessor that failed after it was enqueued.
    if (status == TaskStatus::succeeded && task->failure) status = TaskStatus::failed;
    if (!observed) close();
  }
  if (observed) {
    if (const auto observers = observers_.load(std::memory_order_acquire)) {
      for (const auto& observer : *observers)
        observer->on_finish(task->name, task->id, status);
    }
    std::lock_guard guard(task->lock);
    close();
  }
  if (!task->internal && !task->barrier) summary_observer_.on_finish(task->name, task->id, status);
  // Closed: nobody adds successors or callbacks any more, so the lists are read without the lock.
  for (TaskState* successor : task->successors) {
    if (task->enqueued && follows_in_queue(task, successor)) {
      release_hold(successor, status == TaskStatus::succeeded ? nullptr : task->failure);
      successor->release();
      continue;
    }
    // A reader group's own count keeps it alive until it reaches zero (see data_state.hpp): a
    // reader holds no reference to it, and must not touch it after its count down.
    const bool held = !successor->barrier;
    if (status != TaskStatus::succeeded) poison(successor, task->failure);
    if (successor->unmet.fetch_sub(1, std::memory_order_acq_rel) == 1) make_ready(successor);
    if (held) successor->release();
  }
  task->successors.clear();
  if (task->deferred) deferred_in_flight_.fetch_sub(1, std::memory_order_relaxed);
  if (task->barrier) {  // a reader group: no callbacks, counters or in-flight count
    task->finished.store(1, std::memory_order_release);
    task->release();  // the group's reference to itself while unfinished
    return;
  }
  auto& callbacks = task->callbacks;
  task->finished.store(1, std::memory_order_release);
  task->finished.notify_all();
  if (!callbacks.empty()) {
    task->retain();
    const TaskHandle handle(task);
    for (auto& callback : callbacks) {
      try {
        callback(handle);
      } catch (const std::exception& e) {
        log().error("completion callback of task '{}' threw: {}", task->name, e.what());
      } catch (...) {
        log().error("completion callback of task '{}' threw a non-standard exception", task->name);
      }
    }
  }
  callbacks.clear();
  task->accesses.clear();
  task->candidates.clear();

  if (tracer_.enabled() && (task->id & 63) == 0) {
    tracer_.counter("tasks in flight", now_ns(), static_cast<std::int64_t>(in_flight() - 1));
  }
  retire();
  task->release();  // the in-flight reference
}

void RuntimeCore::retire() {
  retired_.fetch_add(1, std::memory_order_seq_cst);
  // Pairs with the waiters, which announce themselves, then read the counters (all sequentially
  // consistent): either they see this task retired, or this sees them waiting. The counters are
  // read only while somebody waits.
  if (throttled_.load(std::memory_order_seq_cst) > 0 && in_flight() <= resume_below_) {
    throttle_epoch_.fetch_add(1, std::memory_order_seq_cst);
    throttle_epoch_.notify_all();
  }
  if (idle_waiters_.load(std::memory_order_seq_cst) > 0 && in_flight() == 0) {
    idle_epoch_.fetch_add(1, std::memory_order_seq_cst);
    idle_epoch_.notify_all();
  }
}

// ---------------------------------------------------------------------------------------------
// Waiting, cancelling, reporting

void RuntimeCore::wait_for(TaskState* task) {
  if (task->is_finished()) return;
  const WorkerIdentity& me = current_worker();
  auto block = [task] {
    while (!task->is_finished())
      task->finished.wait(0, std::memory_order_acquire);
  };
  if (me.executor == nullptr) {
    block();
    return;
  }
  if (!me.executor->stands_in()) {
    help_until(me, [task] { return task->is_finished(); });
    return;
  }
  // A short look first: a child often finishes on another worker in microseconds, and handing
  // the worker to a stand-in and back costs two thread wake-ups.
  constexpr int glances = 16;
  for (int i = 0; i < glances; ++i) {
    std::this_thread::yield();
    if (task->is_finished()) return;
  }
  block_inside_task(block);
}

template <class Wait>
void RuntimeCore::block_inside_task(Wait wait) {
  const WorkerIdentity me = current_worker();
  // The waiting task lends its share of the staging budget to the tasks it may wait for; it
  // takes it back afterwards, even if that goes over the budget for a while.
  TaskState* waiting = running_task;
  const bool lends = waiting != nullptr && waiting->staged;
  if (lends) {
    for (TaskState* admitted : budgets_[waiting->executor.index]->lend(waiting)) {
      admitted->staged = true;
      stage(admitted);
    }
  }
  // A blocked reducer is not running: other reducers of its data may run meanwhile (one it
  // waits for may be among them), so its reduction must not span the wait.
  const bool held_gates = waiting != nullptr && waiting->holds_gates;
  if (held_gates) release_reduce_gates(waiting);
  me.executor->suspend_worker(me.worker);
  wait();
  if (held_gates) {
    while (!acquire_reduce_gates(waiting, false))
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  me.executor->resume_worker(me.worker);
  if (lends) budgets_[waiting->executor.index]->take_back(waiting);
}

void RuntimeCore::wait_until_idle() {
  if (current_worker().executor != nullptr) {
    throw Error(
        "wait_all() was called from inside a task: it would wait for that task itself; wait "
        "for the specific tasks (TaskHandle::wait) instead");
  }
  idle_waiters_.fetch_add(1, std::memory_order_seq_cst);
  while (true) {
    const std::uint32_t epoch = idle_epoch_.load(std::memory_order_seq_cst);
    if (in_flight() == 0) break;
    idle_epoch_.wait(epoch, std::memory_order_seq_cst);
  }
  idle_waiters_.fetch_sub(1, std::memory_order_seq_cst);
}

void RuntimeCore::wait_all() {
  wait_until_idle();
  std::shared_ptr<const FailureRecord> failure;
  {
    std::lock_guard guard(failure_lock_);
    failure.swap(first_failure_);
    // Every failure so far is collected: what depends on it later fails as a new failure, and a
    // plain write of its data starts afresh.
    collections_.fetch_add(1, std::memory_order_acq_rel);
  }
  if (!failure) return;
  if (!failure->dependent.empty()) {
    throw TaskFailed(failure->task, failure->error,
                     fmt::format("task '{}' did not run: task '{}' it depends on failed: {}",
                                 failure->dependent, failure->task, describe(failure->error)));
  }
  throw TaskFailed(failure->task, failure->error,
                   fmt::format("task '{}' failed: {}", failure->task, describe(failure->error)));
}

void RuntimeCore::cancel_all() {
  raise_to_at_least(cancel_below_, next_task_id_.load());
  sweep_pool();
}

void RuntimeCore::cancel(TaskState* task) {
  task->cancel_requested.store(true, std::memory_order_release);
  sweep_pool();
}

void RuntimeCore::add_callback(TaskState* task, std::function<void(const TaskHandle&)> callback) {
  {
    std::lock_guard guard(task->lock);
    if (!task->closed) {
      task->callbacks.push_back(std::move(callback));
      return;
    }
  }
  task->retain();
  callback(TaskHandle(task));
}

RunSummary RuntimeCore::summary() const {
  std::vector<const Executor*> executors;
  for (std::uint32_t i = 0; i < executor_count_.load(); ++i)
    executors.push_back(executors_[i].get());
  RunSummary summary = summary_observer_.summary(executors, static_cast<double>(now_ns()) / 1e9);
  if (const StagingHook* hook = this->hook(); hook != nullptr) summary.staging = hook->summary();
  return summary;
}

namespace {
// Gives the tracer one span per task that ran.
class TraceObserver final : public TaskObserver {
 public:
  explicit TraceObserver(Tracer& tracer) : tracer_(tracer) {}
  void on_run(const TaskRun& run) override {
    tracer_.span(std::string(run.name), run.executor.index, run.lane, run.start_ns, run.end_ns,
                 run.bytes, run.placed_by != nullptr ? placement_args(run) : std::string());
  }

 private:
  // Why a task with several candidates ran where it did: the policy, the candidates and the
  // speedup it saw, with where that came from (given, or estimates per kind: learned ones).
  static std::string placement_args(const TaskRun& run) {
    const CostHints* hints = run.hints;
    const char* from = hints == nullptr                    ? "none"
                       : hints->speedup > 0                ? "given"
                       : hints->effective_speedup() != 1.0 ? "estimates"
                                                           : "none";
    return fmt::format(R"("placement":"{}","candidates":{},"speedup":{:.3g},"speedup_from":"{}")",
                       run.placed_by, run.candidates,
                       hints != nullptr ? hints->effective_speedup() : 1.0, from);
  }

 private:
  Tracer& tracer_;
};
}  // namespace

void RuntimeCore::enable_tracing() {
  tracer_.enable();
  std::shared_ptr<TaskObserver> observer;
  {
    std::lock_guard guard(observers_lock_);
    if (trace_observer_) return;
    trace_observer_ = std::make_shared<TraceObserver>(tracer_);
    observer = trace_observer_;
  }
  add_observer(std::move(observer));
}

void RuntimeCore::add_observer(std::shared_ptr<TaskObserver> observer) {
  if (!observer) throw Error("add_observer() was given no observer");
  std::lock_guard guard(observers_lock_);
  auto next = std::make_shared<Observers>();
  if (const auto current = observers_.load(std::memory_order_acquire)) *next = *current;
  next->push_back(std::move(observer));
  observers_.store(std::move(next), std::memory_order_release);
  observing_.store(true, std::memory_order_release);
}

void RuntimeCore::remove_observer(const TaskObserver* observer) {
  std::lock_guard guard(observers_lock_);
  auto next = std::make_shared<Observers>();
  if (const auto current = observers_.load(std::memory_order_acquire)) {
    for (const auto& kept : *current) {
      if (kept.get() != observer) next->push_back(kept);
    }
  }
  observing_.store(!next->empty(), std::memory_order_release);
  observers_.store(std::move(next), std::memory_order_release);
}

void RuntimeCore::write_trace(const std::string& path) const {
  std::vector<std::string> names;
  std::vector<unsigned> workers;
  for (std::uint32_t i = 0; i < executor_count_.load(); ++i) {
    names.push_back(executors_[i]->name());
    workers.push_back(executors_[i]->lane_count());
  }
  tracer_.write(path, names, workers);
}

}  // namespace strata::runtime::detail
