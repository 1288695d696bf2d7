// ReadyPool: the shared pool of multi-candidate ready tasks under a pulling policy.

#include "ready_pool.hpp"

namespace strata::runtime::detail {

void ReadyPool::add(TaskState* task) {
  std::lock_guard guard(lock_);
  tasks_.push_back(task);
  count(task, +1);
}

void ReadyPool::count(const TaskState* task, int delta) {
  for (ExecutorId id : task->candidates) {
    if (delta > 0) {
      waiting_[id.index].fetch_add(1, std::memory_order_seq_cst);
    } else {
      waiting_[id.index].fetch_sub(1, std::memory_order_seq_cst);
    }
  }
  if (delta > 0) {
    size_.fetch_add(1, std::memory_order_release);
  } else {
    size_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace strata::runtime::detail
