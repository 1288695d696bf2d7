#include "staging_budget.hpp"

#include <algorithm>

#include "task_state.hpp"

namespace strata::runtime::detail {

bool StagingBudget::fits(std::uint64_t bytes) const {
  return tasks_ == 0 || (bytes_ + bytes <= max_bytes_ && tasks_ < max_tasks_);
}

void StagingBudget::account(const TaskState* task) {
  bytes_ += task->bytes;
  ++tasks_;
  peak_bytes_ = std::max(peak_bytes_, bytes_);
}

bool StagingBudget::try_admit(TaskState* task) {
  std::lock_guard guard(lock_);
  const bool anyone_waiting = std::any_of(waiting_.begin(), waiting_.end(),
                                          [](const auto& queue) { return !queue.empty(); });
  if (!anyone_waiting && fits(task->bytes)) {
    account(task);
    return true;
  }
  waiting_[static_cast<int>(task->priority)].push_back(task);
  return false;
}

std::vector<TaskState*> StagingBudget::release(const TaskState* task) {
  std::vector<TaskState*> admitted;
  std::lock_guard guard(lock_);
  bytes_ -= task->bytes;
  --tasks_;
  for (int level = priority_levels - 1; level >= 0; --level) {
    auto& queue = waiting_[level];
    while (!queue.empty() && fits(queue.front()->bytes)) {
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
