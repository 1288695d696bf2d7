#pragma once
// The narrow interface between the runtime and the memory manager: a task declares the data it
// needs; the hook makes that data present in the executor's memory space before the task runs.

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strata/runtime/task.hpp"

namespace strata::runtime {

// What a task needs staged.
struct StagingRequest {
  std::uint64_t task_id;
  std::string_view task_name;
  ExecutorId executor;
  std::span<const DataAccess> accesses;
  std::uint64_t bytes;
};

// Implemented by the memory manager. stage() calls `done` exactly once, from any thread, with
// nullptr once every access is present (all or none) or with the error that prevented it.
class StagingHook {
 public:
  virtual ~StagingHook() = default;
  virtual void stage(const StagingRequest& request,
                     std::function<void(std::exception_ptr)> done) = 0;
  // Called after the task finished: pins are released, written data becomes the valid copy.
  virtual void unstage(const StagingRequest& request) = 0;
  // The task was submitted and will use its data (task ids increase in submission order), and
  // later it finished or will never run: the future a memory manager evicts by.
  virtual void declared(const StagingRequest& /*request*/) {}
  virtual void retired(const StagingRequest& /*request*/) {}
  // Called when a queue-ordered task (TaskSpec::in_queue_order()) enqueued its work, before its
  // queue successors are staged: what it writes is the valid copy from now on in the order of
  // its executor's queue. Pins stay until unstage().
  virtual void enqueued(const StagingRequest& /*request*/) {}
  // A few lines for the end-of-run summary (e.g. memory statistics); empty: nothing to add.
  virtual std::string summary() const { return {}; }
  // For placement policies (TaskView, ExecutorView): the memory spaces that hold a valid copy of
  // `data`, and the space the tasks of `executor` get their data in. Spaces are the memory
  // manager's SpaceId indices; by default nothing is known (empty, nullopt). Like stage(), they
  // are called only while some task is in flight, from any thread.
  virtual std::vector<std::uint32_t> valid_copies(const DataHandle& /*data*/) const { return {}; }
  virtual std::optional<std::uint32_t> memory_space(ExecutorId /*executor*/) const {
    return std::nullopt;
  }
};

}  // namespace strata::runtime
