#include "staging_budget.hpp"

#include <algorithm>

#include "task_state.hpp"

namespace strata::runtime::detail {

// A task that adds no bytes (its data held already) fits whenever the task limit allows, even
// when a task admitted alone holds more than the budget.
bool StagingBudget::fits(std::uint64_t bytes) const {
  return tasks_ == 0 || ((bytes == 0 || bytes_ + bytes <= max_bytes_) && tasks_ < max_tasks_);
}

std::uint64_t StagingBudget::charge(const TaskState* task) const {
  if (task->footprint_given) return task->bytes;
  std::uint64_t bytes = 0;
  for (const DataAccess& access : task->accesses) {
    if (held_.count(access.data.id()) == 0) bytes += access.data.bytes();
  }
  return bytes;
}

void StagingBudget::account(const TaskState* task) {
  if (task->footprint_given) {
    bytes_ += task->bytes;
  } else {
    for (const DataAccess& access : task->accesses) {
      Held& held = held_[access.data.id()];
      if (held.tasks++ == 0) {
        held.bytes = access.data.bytes();
        bytes_ += held.bytes;
      }
    }
  }
  ++tasks_;
  peak_bytes_ = std::max(peak_bytes_, bytes_);
}

void StagingBudget::unaccount(const TaskState* task) {
  if (task->footprint_given) {
    bytes_ -= task->bytes;
  } else {
    for (const DataAccess& access : task->accesses) {
      const auto found = held_.find(access.data.id());
      if (found == held_.end() || --found->second.tasks != 0) continue;
      bytes_ -= found->second.bytes;
      held_.erase(found);
    }
  }
  --tasks_;
}

bool StagingBudget::try_admit(TaskState* task) {
  std::lock_guard guard(lock_);
  const bool anyone_waiting = std::any_of(waiting_.begin(), waiting_.end(),
                                          [](const auto& queue) { return !queue.empty(); });
  if (!anyone_waiting && fits(charge(task))) {
    account(task);
    return true;
  }
  waiting_[static_cast<int>(task->priority)].push_back(task);
  return false;
}

std::vector<TaskState*> StagingBudget::release(const TaskState* task) {
  std::vector<TaskState*> admitted;
  std::lock_guard guard(lock_);
  unaccount(task);
  for (int level = priority_levels - 1; level >= 0; --level) {
    auto& queue = waiting_[level];
    while (!queue.empty() && fits(charge(queue.front()))) {
      account(queue.front());
      admitted.push_back(queue.front());
      queue.pop_front();
    }
    if (!queue.empty()) break;  // keep priority order: nothing lower jumps ahead
  }
  return admitted;
}

void StagingBudget::take_back(const TaskState* task) {
  std::lock_guard guard(lock_);
  account(task);
}

std::uint64_t StagingBudget::staged_bytes() const {
  std::lock_guard guard(lock_);
  return bytes_;
}

std::uint64_t StagingBudget::peak_bytes() const {
  std::lock_guard guard(lock_);
  return peak_bytes_;
}

}  // namespace strata::runtime::detail
