#pragma once
// ReadyPool: ready tasks with several candidate executors, waiting under a pulling placement
// policy until an idle worker of one of their candidates takes one (the region-templates paper's
// demand-driven assignment). Oldest first; the policy picks which one an executor takes.

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "strata/runtime/scheduling_policy.hpp"
#include "task_state.hpp"

namespace strata::runtime::detail {

class ReadyPool {
 public:
  static constexpr std::size_t max_executors = 64;

  // Pools `task` (its candidates decide who may take it).
  void add(TaskState* task);
  // Whether a pooled task lists `executor` as a candidate (sequentially consistent: read after
  // announcing idleness, it pairs with add(), which counts before waking anyone).
  bool has_work_for(std::uint32_t executor) const {
    return waiting_[executor].load(std::memory_order_seq_cst) != 0;
  }
  bool empty() const { return size_.load(std::memory_order_acquire) == 0; }
  // Removes every task for which `drop(task)` holds into `dropped`; then, among the tasks that
  // list `executor`, removes and returns the one `policy` picks for it (nullptr if none).
  // `describe()` makes the executor's view, only once some task is there to pick: so the staging
  // hook is asked only while a task is in flight (a hook may be destroyed once all finished).
  template <class Describe, class Drop>
  TaskState* take(std::uint32_t executor, Describe describe, PlacementPolicy& policy,
                  const StagingHook* hook, Drop drop, std::vector<TaskState*>& dropped);
  // Removes every task for which `drop(task)` holds into `dropped`.
  template <class Drop>
  void drop_if(Drop drop, std::vector<TaskState*>& dropped) {
    std::lock_guard guard(lock_);
    drop_locked(drop, dropped);
  }

 private:
  static bool lists(const TaskState* task, std::uint32_t executor) {
    for (ExecutorId id : task->candidates)
      if (id.index == executor) return true;
    return false;
  }
  void count(const TaskState* task, int delta);
  template <class Drop>
  void drop_locked(Drop& drop, std::vector<TaskState*>& dropped) {
    std::erase_if(tasks_, [&](TaskState* task) {
      if (!drop(task)) return false;
      count(task, -1);
      dropped.push_back(task);
      return true;
    });
  }

  std::mutex lock_;
  std::vector<TaskState*> tasks_;  // oldest first
  std::vector<TaskView> views_;    // reused by take()
  std::vector<std::size_t> positions_;
  std::array<std::atomic<std::uint32_t>, max_executors> waiting_{};  // pooled tasks per candidate
  std::atomic<std::size_t> size_{0};
};

template <class Describe, class Drop>
TaskState* ReadyPool::take(std::uint32_t executor, Describe describe, PlacementPolicy& policy,
                           const StagingHook* hook, Drop drop, std::vector<TaskState*>& dropped) {
  std::lock_guard guard(lock_);
  drop_locked(drop, dropped);
  views_.clear();
  positions_.clear();
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    if (!lists(tasks_[i], executor)) continue;
    views_.emplace_back(*tasks_[i], hook);
    positions_.push_back(i);
  }
  if (views_.empty()) return nullptr;
  std::size_t picked = policy.pick(describe(), views_);
  if (picked >= views_.size()) picked = 0;  // a policy's out-of-range answer: the oldest
  TaskState* task = tasks_[positions_[picked]];
  tasks_.erase(tasks_.begin() + static_cast<std::ptrdiff_t>(positions_[picked]));
  count(task, -1);
  views_.clear();
  return task;
}

}  // namespace strata::runtime::detail
