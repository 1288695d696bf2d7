#pragma once
// The narrow interface between the runtime and the memory manager: a task declares the data it
// needs; the hook makes that data present in the executor's memory space before the task runs.

#include <cstdint>
#include <exception>
#include <functional>
#include <span>
#include <string>
#include <string_view>

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
  // A few lines for the end-of-run summary (e.g. memory statistics); empty: nothing to add.
  virtual std::string summary() const { return {}; }
};

}  // namespace strata::runtime
