// TaskState records: created from and recycled into a process-wide free list.

#include "task_state.hpp"

#include <new>

#include "recycler.hpp"

namespace strata::runtime::detail {
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

// Empties `list`, and gives its buffer back when an unusual task made it large.
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
  // Rebuilt in place, so that every field starts as in a new record, except that the (emptied)
  // vectors keep their buffers.
  auto kept_successors = std::move(successors);
  auto kept_callbacks = std::move(callbacks);
  auto kept_candidates = std::move(candidates);
  auto kept_accesses = std::move(accesses);
  empty(kept_successors, 64);
  empty(kept_callbacks, 8);
  empty(kept_candidates, 8);
  empty(kept_accesses, 16);
  this->~TaskState();
  new (this) TaskState;
  successors = std::move(kept_successors);
  callbacks = std::move(kept_callbacks);
  candidates = std::move(kept_candidates);
  accesses = std::move(kept_accesses);
  TaskRecycler::give(this);
}

}  // namespace strata::runtime::detail
