#include "strata/runtime/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runtime_core.hpp"
#include "strata/base/units.hpp"

namespace strata::runtime {

// DataHandle ----------------------------------------------------------------------------------

const std::string& DataHandle::name() const {
  return state_->name;
}
std::uint64_t DataHandle::bytes() const {
  return state_->bytes;
}
DataHandle::DataHandle(std::shared_ptr<detail::DataState> state)
    : state_(std::move(state)), id_(state_ ? state_->id : 0) {}

// Runtime -------------------------------------------------------------------------------------

Runtime::Runtime(Config config)
    : core_(std::make_unique<detail::RuntimeCore>(std::move(config), *this)) {}

Runtime::~Runtime() = default;

const Config& Runtime::config() const {
  return core_->config();
}

TaskHandle Runtime::submit(TaskSpec spec, TaskFunction body) {
  return core_->submit(std::move(spec), std::move(body));
}

TaskHandle Runtime::submit(TaskFunction body) {
  return core_->submit(std::move(body));
}

void Runtime::spawn(TaskSpec spec, TaskFunction body) {
  core_->spawn(std::move(spec), std::move(body));
}

void Runtime::spawn(TaskFunction body) {
  core_->spawn(std::move(body));
}

void Runtime::post(ExecutorId executor, std::string name, std::function<void()> work) {
  core_->post(executor, std::move(name), std::move(work));
}

TaskHandle Runtime::when_all(const std::vector<TaskHandle>& tasks) {
  return submit(TaskSpec("when_all").after(tasks), [] {});
}

DataHandle Runtime::create_data(std::string name, std::uint64_t bytes) {
  return DataHandle(core_->create_data(std::move(name), bytes));
}

void Runtime::wait_all() {
  core_->wait_all();
}
void Runtime::cancel_all() {
  core_->cancel_all();
}

ExecutorId Runtime::cpu() const {
  return ExecutorId{0};
}
ExecutorId Runtime::io() const {
  return ExecutorId{1};
}

ExecutorId Runtime::add_executor(std::unique_ptr<Executor> executor) {
  return core_->add_executor(std::move(executor));
}

Executor& Runtime::executor(ExecutorId id) {
  return core_->executor(id);
}

void Runtime::set_staging_hook(StagingHook* hook) {
  core_->set_staging_hook(hook);
}

void Runtime::limit_staging_bytes(ExecutorId executor, std::uint64_t bytes) {
  core_->limit_staging_bytes(executor, bytes);
}

RunHistory& Runtime::history() {
  return core_->history();
}

void Runtime::set_placement_policy(std::unique_ptr<PlacementPolicy> policy) {
  core_->set_placement_policy(std::move(policy));
}

std::uint64_t Runtime::tasks_in_flight() const {
  return core_->in_flight();
}

RunSummary Runtime::summary() const {
  return core_->summary();
}

bool Runtime::tracing() const {
  return core_->tracer().enabled();
}

void Runtime::trace_memory_span(ExecutorId executor, const std::string& name,
                                std::chrono::steady_clock::time_point start,
                                std::chrono::steady_clock::time_point end, std::uint64_t bytes) {
  if (!core_->tracer().enabled()) return;
  core_->tracer().span(name, executor.index, detail::Tracer::memory_lane, core_->trace_ns(start),
                       core_->trace_ns(end), bytes);
}

void Runtime::trace_counter(const std::string& name, std::int64_t value) {
  if (!core_->tracer().enabled()) return;
  core_->tracer().counter(name.c_str(), core_->trace_ns(std::chrono::steady_clock::now()), value);
}

void Runtime::add_observer(std::shared_ptr<TaskObserver> observer) {
  core_->add_observer(std::move(observer));
}

void Runtime::remove_observer(const TaskObserver* observer) {
  core_->remove_observer(observer);
}

void Runtime::enable_tracing() {
  core_->enable_tracing();
}

void Runtime::write_trace(const std::string& path) const {
  core_->write_trace(path);
}

// RunSummary ----------------------------------------------------------------------------------

std::string RunSummary::format() const {
  std::string text =
      fmt::format("tasks: {} succeeded, {} failed, {} cancelled in {}\n", tasks_succeeded,
                  tasks_failed, tasks_cancelled, format_seconds(wall_seconds));
  std::size_t width = 12;
  for (const auto& executor : executors)
    width = std::max(width, executor.name.size());
  text += fmt::format("{:<{}} {:>7} {:>10} {:>12} {:>11}\n", "executor", width, "workers", "tasks",
                      "busy", "utilization");
  for (const auto& executor : executors) {
    text += fmt::format("{:<{}} {:>7} {:>10} {:>12} {:>10.1f}%\n", executor.name, width,
                        executor.workers, executor.tasks, format_seconds(executor.busy_seconds),
                        100.0 * executor.utilization);
  }
  if (!staging.empty()) text += "\n" + staging;
  return text;
}

}  // namespace strata::runtime
