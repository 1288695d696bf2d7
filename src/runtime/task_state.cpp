// TaskState records: created from and recycled into a process-wide free list.

#include "task_state.hpp"

#include "recycler.hpp"

namespace strata::runtime::detail {

std::string describe(const std::exception_ptr& error) {
  if (!error) return "cancelled";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool recycle_records = false;  // AddressSanitizer must see every use after release
#else
constexpr bool recycle_records = true;
#endif

// Up to 512 batches of 256 records (131,072, about 37 MB) wait for reuse: a submitter that runs
// ahead of the workers keeps tens of thousands of tasks in flight, and with fewer records shelved
// every round beyond the shelf went through new and delete (measured: 25,000 to 89,000 tasks in
// flight while 100,000 empty tasks are submitted on 2 workers).
using TaskRecycler = Recycler<TaskState, 256, 512>;

// Empties `list` (a vector or string), and gives its buffer back when an unusual task made it
// large.
template <class List>
void empty(List& list, std::size_t keep_capacity) {
  if (list.capacity() > keep_capacity) {
    List().swap(list);
  } else {
    list.clear();
  }
}

}  // namespace

TaskState* TaskState::create() {
  if constexpr (recycle_records) {
    if (TaskState* task = TaskRecycler::take()) return task;
  }
  return new TaskState;
}

void TaskState::recycle() {
  if constexpr (!recycle_records) {
    delete this;
    return;
  }
  // Every field back to its value in a new record, field by field (rebuilding the record in
  // place cost three times as much); emptied vectors keep their buffers. A field added to
  // TaskState must be reset here too.
  references.store(1, std::memory_order_relaxed);
  unmet.store(1, std::memory_order_relaxed);
  status.store(TaskStatus::pending, std::memory_order_relaxed);
  cancel_requested.store(false, std::memory_order_relaxed);
  finished.store(0, std::memory_order_relaxed);
  closed = false;
  empty(successors, 64);
  empty(callbacks, 8);
  failure.reset();
  body.reset();
  empty(name, 64);
  id = 0;
  priority = Priority::normal;
  empty(candidates, 8);
  executor = ExecutorId{};
  enqueue_unmet.store(0, std::memory_order_relaxed);
  empty(accesses, 16);
  bytes = 0;
  staged = false;
  has_reduce = false;
  holds_gates = false;
  hook_staged = false;
  hook_declared = false;
  deferred = false;
  internal = false;
  barrier = false;
  completed.store(false, std::memory_order_relaxed);
  deferred_parts.store(0, std::memory_order_relaxed);
  pulled = false;
  queue_ordered = false;
  enqueued = false;
  finish_holds.store(1, std::memory_order_relaxed);
  parked_status = TaskStatus::pending;
  deferred_error = nullptr;
  runtime = nullptr;
  hints.reset();
  TaskRecycler::give(this);
}

}  // namespace strata::runtime::detail
