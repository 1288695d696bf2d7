#include "data_state.hpp"

#include <algorithm>

#include "task_state.hpp"

namespace strata::runtime::detail {
namespace {

bool finished_well(const TaskState* task) {
  return task->is_finished() &&
         task->status.load(std::memory_order_acquire) == TaskStatus::succeeded;
}

void release_all(std::vector<TaskState*>& tasks) {
  for (TaskState* task : tasks)
    task->release();
  tasks.clear();
}

void retain_into(const std::vector<TaskState*>& tasks, TaskState* self,
                 std::vector<TaskState*>& out) {
  for (TaskState* task : tasks) {
    // A finished task orders nothing any more, unless it failed: then `self` must fail too.
    if (task == self || finished_well(task)) continue;
    task->retain();
    out.push_back(task);
  }
}

void remember(std::vector<TaskState*>& list, TaskState* task) {
  task->retain();
  list.push_back(task);
}

// A group of reducers ends when any other access arrives: it becomes the last write.
void close_reduce_group(DataState& data) {
  if (data.reducers.empty()) return;
  release_all(data.last_write);
  release_all(data.readers);
  release_all(data.reduce_base);
  data.last_write.swap(data.reducers);
}

// Drops finished readers once the list doubled since the last pruning: amortized O(1) per read,
// in place (the order of readers does not matter).
void prune_finished_readers(DataState& data) {
  if (data.readers.size() < data.prune_readers_at) return;
  std::size_t kept = 0;
  for (TaskState* task : data.readers) {
    if (finished_well(task)) {
      task->release();
    } else {
      data.readers[kept++] = task;
    }
  }
  data.readers.resize(kept);
  data.prune_readers_at = std::max<std::size_t>(64, 2 * kept);
}

}  // namespace

DataState::~DataState() {
  release_all(last_write);
  release_all(readers);
  release_all(reducers);
  release_all(reduce_base);
}

void record_access(DataState& data, TaskState* task, Access mode,
                   std::vector<TaskState*>& wait_for) {
  switch (mode) {
    case Access::read:
      close_reduce_group(data);
      retain_into(data.last_write, task, wait_for);
      prune_finished_readers(data);
      remember(data.readers, task);
      break;
    case Access::write:
    case Access::read_write:
      close_reduce_group(data);
      retain_into(data.last_write, task, wait_for);
      retain_into(data.readers, task, wait_for);
      release_all(data.last_write);
      release_all(data.readers);
      remember(data.last_write, task);
      break;
    case Access::reduce:
      if (data.reducers.empty()) {
        release_all(data.reduce_base);
        const auto& base = data.readers.empty() ? data.last_write : data.readers;
        for (TaskState* before : base)
          remember(data.reduce_base, before);
      }
      retain_into(data.reduce_base, task, wait_for);
      remember(data.reducers, task);
      break;
  }
}

}  // namespace strata::runtime::detail
