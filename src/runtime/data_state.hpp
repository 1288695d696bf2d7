#pragma once
// DataState: per-datum bookkeeping that orders conflicting accesses in submission order, and the
// reduce gate that keeps reduce accesses to one datum from running at the same time.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "strata/runtime/data_handle.hpp"

namespace strata::runtime::detail {

struct TaskState;

struct DataState {
  DataState(std::string data_name, std::uint64_t data_bytes, std::uint64_t data_id)
      : name(std::move(data_name)), bytes(data_bytes), id(data_id) {}
  ~DataState();
  DataState(const DataState&) = delete;
  DataState& operator=(const DataState&) = delete;

  const std::string name;
  const std::uint64_t bytes;
  const std::uint64_t id;

  // Access history, guarded by the runtime's registration mutex. Every entry holds a reference.
  std::vector<TaskState*> last_write;  // the last writer, or the last group of reducers
  // The readers since last_write as one group: a barrier task that every such reader counts
  // down when it finishes, so a read costs O(1) and no reader is kept alive by the datum. The
  // datum holds the group open (its open count) until a writer or reducer ends it. A group holds
  // a reference to itself until it finishes (or, never ended, until its count reaches zero), so
  // readers count it down without holding references.
  TaskState* readers = nullptr;
  // The datum's open count in `readers`: the group starts with a large count, and a joining
  // reader takes one from this share instead of raising the group's count, so that only the
  // workers that finish readers write the group's count (the submitter raising it per read cost
  // a cache miss on both sides). Ending the group drops the share left.
  std::int32_t readers_open_count = 0;
  std::vector<TaskState*> reducers;     // the open group of reducers
  std::vector<TaskState*> reduce_base;  // what the open group of reducers waits for

  // Reduce gate: at most one reducer of this datum runs at a time. Its waiters, first come
  // first served, in a vector that allocates only once one waits (a datum is made for every
  // reduction partial; a deque allocates two blocks up front). Under gate_lock.
  std::mutex gate_lock;
  TaskState* gate_holder = nullptr;
  std::vector<TaskState*> gate_waiters;
  std::size_t gate_waiters_served = 0;  // the waiters before it have left

  void wait_at_gate(TaskState* task) { gate_waiters.push_back(task); }
  // The next waiter, taken out, or null.
  TaskState* next_at_gate() {
    if (gate_waiters_served == gate_waiters.size()) return nullptr;
    TaskState* next = gate_waiters[gate_waiters_served++];
    if (gate_waiters_served == gate_waiters.size()) {
      gate_waiters.clear();
      gate_waiters_served = 0;
    }
    return next;
  }
};

// What registering accesses asks of the caller once the registration mutex is released.
struct AccessOrder {
  // A task the registered task must follow, retained once for the caller. `overwrites`: the
  // registered task only writes the datum they share, so it needs their order, not their output.
  struct Predecessor {
    TaskState* task;
    bool overwrites;
  };
  std::vector<Predecessor> wait_for;
  // Reader groups the registered task ended, each retained once for the caller, with the
  // datum's open count in it: once the task's edges are added, the caller drops that count.
  struct EndedGroup {
    TaskState* group;
    std::int32_t open_count;
    bool by_write;  // ended by a plain write (its only successor)
  };
  std::vector<EndedGroup> ended_groups;
};

// Records that `task` accesses `data` with `mode` (the next access in submission order) and adds
// to `order` what the caller must do.
void record_access(DataState& data, TaskState* task, Access mode, AccessOrder& order);

}  // namespace strata::runtime::detail
