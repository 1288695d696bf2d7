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

bool StagingBudget::reuses(const TaskState* task, std::uint64_t adds) const {
  // Without a footprint, bytes is the sum of its data: what it finds held is the rest.
  if (task->footprint_given) return false;
  const std::uint64_t held = task->bytes - adds;
  return held > 0 && adds <= held;
}

bool StagingBudget::anyone_waiting() const {
  const auto busy = [](const auto& queue) { return !queue.empty(); };
  return std::any_of(waiting_.begin(), waiting_.end(), busy) ||
         std::any_of(reusers_.begin(), reusers_.end(), busy);
}

void StagingBudget::limit_bytes(std::uint64_t bytes) {
  std::lock_guard guard(lock_);
  max_bytes_ = std::min(configured_bytes_, std::max<std::uint64_t>(1, bytes));
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
  const std::uint64_t adds = charge(task);
  const bool reuser = reuses(task, adds);
  if ((reuser || !anyone_waiting()) && fits(adds)) {
    account(task);
    return true;
  }
  (reuser ? reusers_ : waiting_)[static_cast<int>(task->priority)].push_back(task);
  return false;
}

std::vector<TaskState*> StagingBudget::release(const TaskState* task) {
  std::vector<TaskState*> admitted;
  std::lock_guard guard(lock_);
  unaccount(task);
  // Highest priority first, and within a level the tasks on staged data first; nothing waiting
  // behind a task that does not fit jumps ahead of it.
  for (int level = priority_levels - 1; level >= 0; --level) {
    for (auto* queue : {&reusers_[level], &waiting_[level]}) {
      while (!queue->empty() && fits(charge(queue->front()))) {
        account(queue->front());
        admitted.push_back(queue->front());
        queue->pop_front();
      }
      if (!queue->empty()) return admitted;
    }
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
