#include "data_state.hpp"

#include <algorithm>
#include <utility>

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

void retain_into(const std::vector<TaskState*>& tasks, TaskState* self, bool overwrites,
                 std::vector<AccessOrder::Predecessor>& out) {
  for (TaskState* task : tasks) {
    // A finished task orders nothing any more, unless it failed: then `self` may have to fail.
    if (task == self || finished_well(task)) continue;
    task->retain();
    out.push_back({task, overwrites});
  }
}

void remember(std::vector<TaskState*>& list, TaskState* task) {
  task->retain();
  list.push_back(task);
}

// The datum's open count in a new reader group, and what it takes back from the group once its
// readers used up all but `low_open_count` of it (see DataState::readers_open_count).
constexpr std::int32_t initial_open_count = 1 << 16;
constexpr std::int32_t low_open_count = 1 << 10;

// A new, open reader group: the datum's reference, its reference to itself while unfinished,
// and the datum's open count.
void open_reader_group(DataState& data, const TaskState* first_reader) {
  TaskState* group = TaskState::create();
  group->references.store(2, std::memory_order_relaxed);
  group->unmet.store(initial_open_count, std::memory_order_relaxed);
  group->enqueue_unmet.store(initial_open_count, std::memory_order_relaxed);
  // Queue-ordered while every reader is, on one executor (join() keeps it so).
  group->queue_ordered = first_reader->queue_ordered;
  group->executor = first_reader->executor;
  group->runtime = first_reader->runtime;
  group->internal = true;
  group->barrier = true;
  data.readers = group;
  data.readers_open_count = initial_open_count;
}

// `reader` counts the group down when it finishes (the group is one of its successors, held by
// that count, not by a reference); the count it will take was the datum's. The reader is being
// registered, so no other thread reaches its successor list yet.
void join(DataState& data, TaskState* reader) {
  TaskState* group = data.readers;
  if (--data.readers_open_count < low_open_count) {
    group->unmet.fetch_add(initial_open_count, std::memory_order_relaxed);
    group->enqueue_unmet.fetch_add(initial_open_count, std::memory_order_relaxed);
    data.readers_open_count += initial_open_count;
  }
  if (!reader->queue_ordered || !(reader->executor == group->executor))
    group->queue_ordered = false;
  reader->successors.push_back(group);
}

// Takes the open reader group from the datum, retained for the caller, with the datum's count.
AccessOrder::EndedGroup end_reader_group(DataState& data, bool by_write) {
  data.readers->retain();
  return {std::exchange(data.readers, nullptr), std::exchange(data.readers_open_count, 0),
          by_write};
}

// A group of reducers ends when any other access arrives: it becomes the last write.
void close_reduce_group(DataState& data) {
  if (data.reducers.empty()) return;
  release_all(data.last_write);
  release_all(data.reduce_base);
  data.last_write.swap(data.reducers);
}

}  // namespace

DataState::~DataState() {
  release_all(last_write);
  // An open reader group that no writer ended: drop the open count. If readers still run, the
  // last one finishes the group (it has no successors); if none does, it ends here.
  if (readers != nullptr) {
    const std::int32_t open = readers_open_count;
    if (readers->unmet.fetch_sub(open, std::memory_order_acq_rel) == open) readers->release();
    readers->release();
  }
  release_all(reducers);
  release_all(reduce_base);
}

void record_access(DataState& data, TaskState* task, Access mode, AccessOrder& order) {
  switch (mode) {
    case Access::read:
      close_reduce_group(data);
      retain_into(data.last_write, task, false, order.wait_for);
      if (data.readers == nullptr) open_reader_group(data, task);
      join(data, task);
      break;
    case Access::write:
    case Access::read_write: {
      const bool overwrites = mode == Access::write;
      close_reduce_group(data);
      retain_into(data.last_write, task, overwrites, order.wait_for);
      release_all(data.last_write);
      if (data.readers != nullptr) {
        TaskState* group = data.readers;
        order.ended_groups.push_back(end_reader_group(data, overwrites));
        order.wait_for.push_back({group, overwrites});  // the datum's reference
      }
      remember(data.last_write, task);
      break;
    }
    case Access::reduce:
      // Readers are ended by the first reducer (a read closes the reduce group first).
      if (data.reducers.empty()) {
        release_all(data.reduce_base);
        if (data.readers != nullptr) {
          TaskState* group = data.readers;
          order.ended_groups.push_back(end_reader_group(data, false));
          data.reduce_base.push_back(group);  // the datum's reference
        } else {
          for (TaskState* before : data.last_write)
            remember(data.reduce_base, before);
        }
      }
      retain_into(data.reduce_base, task, false, order.wait_for);
      remember(data.reducers, task);
      break;
  }
}

}  // namespace strata::runtime::detail
