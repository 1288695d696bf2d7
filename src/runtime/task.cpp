// TaskSpec, TaskHandle, TaskContext and DeferredCompletion: the user-facing side of a task.

#include <fmt/format.h>

#include "access_lists.hpp"
#include "runtime_core.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::runtime {

using detail::describe;

const char* to_string(TaskStatus status) {
  switch (status) {
    case TaskStatus::pending:
      return "pending";
    case TaskStatus::running:
      return "running";
    case TaskStatus::succeeded:
      return "succeeded";
    case TaskStatus::failed:
      return "failed";
    case TaskStatus::cancelled:
      return "cancelled";
  }
  return "?";
}

const char* to_string(ExecutorKind kind) {
  switch (kind) {
    case ExecutorKind::cpu:
      return "cpu";
    case ExecutorKind::io:
      return "io";
    case ExecutorKind::device_compute:
      return "device compute";
    case ExecutorKind::copy:
      return "copy";
    case ExecutorKind::network:
      return "network";
  }
  return "?";
}

const char* to_string(Access access) {
  switch (access) {
    case Access::read:
      return "read";
    case Access::write:
      return "write";
    case Access::read_write:
      return "read_write";
    case Access::reduce:
      return "reduce";
  }
  return "?";
}

Priority priority_of(const ReadyTask& task) {
  return task.priority;
}

// TaskSpec ------------------------------------------------------------------------------------

TaskSpec& TaskSpec::on(ExecutorId executor) & {
  executors.push_back(executor);
  return *this;
}
TaskSpec& TaskSpec::with_priority(Priority level) & {
  priority = level;
  return *this;
}
TaskSpec& TaskSpec::after(const TaskHandle& task) & {
  if (task) predecessors.push_back(task);
  return *this;
}
TaskSpec& TaskSpec::after(const std::vector<TaskHandle>& tasks) & {
  for (const auto& task : tasks)
    after(task);
  return *this;
}
TaskSpec& TaskSpec::access(const DataHandle& data, Access mode) & {
  if (accesses.capacity() == 0) accesses = detail::SpareAccessLists::take();
  accesses.push_back({data, mode});
  return *this;
}
TaskSpec& TaskSpec::footprint(std::uint64_t staged_bytes) & {
  bytes = staged_bytes;
  return *this;
}
TaskSpec& TaskSpec::in_queue_order() & {
  queue_ordered = true;
  return *this;
}
namespace {
// A private copy of `hints` to change (hints may be shared with other specs).
std::shared_ptr<CostHints> own_copy(const std::shared_ptr<const CostHints>& hints) {
  return hints ? std::make_shared<CostHints>(*hints) : std::make_shared<CostHints>();
}
void check_positive(const char* what, double value) {
  if (!(value > 0)) throw Error(fmt::format("a task's {} must be positive, not {}", what, value));
}
}  // namespace
TaskSpec& TaskSpec::with_speedup(double speedup) & {
  check_positive("speedup", speedup);
  auto changed = own_copy(hints);
  changed->speedup = speedup;
  hints = std::move(changed);
  return *this;
}
TaskSpec& TaskSpec::with_estimate(ExecutorKind kind, double seconds) & {
  check_positive("estimated time", seconds);
  auto changed = own_copy(hints);
  changed->seconds[static_cast<std::size_t>(kind)] = seconds;
  hints = std::move(changed);
  return *this;
}
TaskSpec& TaskSpec::with_hints(std::shared_ptr<const CostHints> shared) & {
  hints = std::move(shared);
  return *this;
}

// TaskHandle ----------------------------------------------------------------------------------

TaskHandle::TaskHandle(const TaskHandle& other) : state_(other.state_) {
  if (state_ != nullptr) state_->retain();
}

TaskHandle::~TaskHandle() {
  if (state_ != nullptr) state_->release();
}

const std::string& TaskHandle::name() const {
  return state_->name;
}

std::uint64_t TaskHandle::task_id() const {
  return state_->id;
}

TaskStatus TaskHandle::status() const {
  return state_->status.load(std::memory_order_acquire);
}

bool TaskHandle::done() const {
  return state_->is_finished();
}

void TaskHandle::wait() const {
  state_->runtime->wait_for(state_);
  const TaskStatus final_status = status();
  if (final_status == TaskStatus::succeeded) return;
  const auto& cause = state_->failure;  // immutable once finished
  const std::string& self = state_->name;
  if (final_status == TaskStatus::failed) {
    if (cause->task_id == state_->id) {
      throw TaskFailed(cause->task, cause->error,
                       fmt::format("task '{}' failed: {}", self, describe(cause->error)));
    }
    throw TaskFailed(cause->task, cause->error,
                     fmt::format("task '{}' did not run: task '{}' it depends on failed: {}", self,
                                 cause->task, describe(cause->error)));
  }
  if (cause && cause->error) {
    throw TaskCancelled(fmt::format("task '{}' was cancelled: task '{}' failed: {}", self,
                                    cause->task, describe(cause->error)));
  }
  if (cause && cause->task_id != state_->id) {
    throw TaskCancelled(fmt::format(
        "task '{}' was cancelled: task '{}' it depends on was cancelled", self, cause->task));
  }
  throw TaskCancelled(fmt::format("task '{}' was cancelled", self));
}

void TaskHandle::on_complete(std::function<void(const TaskHandle&)> callback) const {
  state_->runtime->add_callback(state_, std::move(callback));
}

void TaskHandle::cancel() const {
  state_->runtime->cancel(state_);
}

// TaskContext / DeferredCompletion ------------------------------------------------------------

const std::string& TaskContext::name() const {
  return state_->name;
}

Runtime& TaskContext::runtime() const {
  return state_->runtime->facade();
}

ExecutorId TaskContext::executor() const {
  return state_->executor;
}

std::uint64_t TaskContext::task_id() const {
  return state_->id;
}

DeferredCompletion TaskContext::defer_completion() {
  if (!state_->deferred) {
    state_->deferred = true;
    state_->deferred_parts.store(2, std::memory_order_relaxed);
    state_->retain();  // keeps the task alive until RuntimeCore::run() is done with it
    state_->runtime->note_deferred();
  }
  state_->retain();
  return DeferredCompletion(state_);
}

DeferredCompletion& DeferredCompletion::operator=(DeferredCompletion&& other) noexcept {
  if (this != &other) {
    DeferredCompletion dropped(std::move(*this));
    state_ = other.state_;
    other.state_ = nullptr;
  }
  return *this;
}

DeferredCompletion::~DeferredCompletion() {
  if (state_ == nullptr) return;
  fail(std::make_exception_ptr(Error(
      fmt::format("task '{}': its deferred completion was dropped without complete() or fail()",
                  state_->name))));
}

void DeferredCompletion::complete() {
  if (state_ == nullptr) return;
  detail::TaskState* state = std::exchange(state_, nullptr);
  {
    const detail::RuntimeCore::ExternalCall call(*state->runtime);
    state->runtime->complete(state, nullptr);
  }
  state->release();
}

void DeferredCompletion::fail(std::exception_ptr error) {
  if (state_ == nullptr) return;
  detail::TaskState* state = std::exchange(state_, nullptr);
  {
    const detail::RuntimeCore::ExternalCall call(*state->runtime);
    state->runtime->complete(state, std::move(error));
  }
  state->release();
}

}  // namespace strata::runtime
