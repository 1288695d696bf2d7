#pragma once
// StagingBudget: how far ahead one executor's tasks are staged — a byte budget and a task limit
// (the lightning paper's look-ahead). A task that does not fit waits in priority order. The bytes
// are those of the distinct data the staged tasks use: a task whose data an admitted task holds
// already (consecutive kernels on the same arrays) adds nothing but itself to the count. A task
// with an explicit footprint (TaskSpec::footprint) is charged that, shared with nothing.
// Locality (the lightning paper's future work): a task that adds no more bytes than it finds
// held already (the next kernel on a superblock's chunks) goes ahead of the tasks waiting on new
// data, so it runs while its data is still staged instead of after they pushed it out.

#include <array>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "strata/runtime/task.hpp"

namespace strata::runtime::detail {

struct TaskState;

class StagingBudget {
 public:
  StagingBudget(std::uint64_t max_bytes, std::uint64_t max_tasks)
      : configured_bytes_(max_bytes), max_bytes_(max_bytes), max_tasks_(max_tasks) {}

  // Stages at most `bytes` ahead (with the configured limit, the lower one): an executor's memory
  // space that holds less than the look-ahead would evict staged data before it is used.
  void limit_bytes(std::uint64_t bytes);

  // Admits `task` if it fits (a task alone is always admitted, however large); otherwise it
  // waits and is returned by a later release().
  bool try_admit(TaskState* task);
  // Gives back the budget of a finished task; returns the waiting tasks that now fit.
  std::vector<TaskState*> release(const TaskState* task);
  // A task that blocks in a wait lends its budget to others (returns the tasks it admits), and
  // takes it back when the wait is over, whether or not it fits then.
  std::vector<TaskState*> lend(const TaskState* task) { return release(task); }
  void take_back(const TaskState* task);

  std::uint64_t staged_bytes() const;
  std::uint64_t peak_bytes() const;

 private:
  bool fits(std::uint64_t bytes) const;
  // The bytes admitting `task` adds: its footprint, or its data not yet held (lock_ held).
  std::uint64_t charge(const TaskState* task) const;
  // Whether `task`'s data held already is at least what it adds (lock_ held).
  bool reuses(const TaskState* task, std::uint64_t adds) const;
  bool anyone_waiting() const;
  void account(const TaskState* task);
  void unaccount(const TaskState* task);

  struct Held {
    std::uint64_t bytes = 0;  // as charged when first held
    std::uint64_t tasks = 0;  // admitted tasks using it
  };

  const std::uint64_t configured_bytes_;
  std::uint64_t max_bytes_;  // lock_
  const std::uint64_t max_tasks_;
  mutable std::mutex lock_;
  std::uint64_t bytes_ = 0;
  std::uint64_t tasks_ = 0;
  std::uint64_t peak_bytes_ = 0;
  std::unordered_map<std::uint64_t, Held> held_;  // by data id
  std::array<std::deque<TaskState*>, priority_levels> waiting_;
  std::array<std::deque<TaskState*>, priority_levels> reusers_;  // admitted before waiting_
};

}  // namespace strata::runtime::detail
