#pragma once
// What placement policies see: a read-only view of a ready task (TaskView) and of an executor it
// may run on (ExecutorView). Views are valid only during the policy call that receives them.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strata/runtime/executor_kind.hpp"
#include "strata/runtime/task.hpp"

namespace strata::runtime {

class StagingHook;

// A ready task as a policy sees it: name, candidates, priority, declared accesses (with their
// bytes and, through the staging hook, the memory spaces that hold a valid copy of each), and the
// cost hints given on its TaskSpec.
class TaskView {
 public:
  TaskView(const detail::TaskState& task, const StagingHook* hook) : task_(&task), hook_(hook) {}

  const std::string& name() const;
  std::uint64_t id() const;
  Priority priority() const;
  // The executors it may run on, as listed with TaskSpec::on().
  std::span<const ExecutorId> candidates() const;
  // Its declared accesses (one per datum) and their bytes (DataHandle::bytes()).
  std::span<const DataAccess> accesses() const;
  // Its staging footprint: TaskSpec::footprint(), or the sum of its accesses' bytes.
  std::uint64_t bytes() const;
  // The memory spaces (memory::SpaceId indices) that hold a valid copy of `data`, as the staging
  // hook reports them; empty when unknown (no hook, or data the hook does not back).
  std::vector<std::uint32_t> valid_copies(const DataHandle& data) const;
  // The bytes of its accesses whose data has a valid copy in `space`.
  std::uint64_t bytes_in(std::uint32_t space) const;
  // Cost hints from its TaskSpec, or null.
  const CostHints* hints() const;
  // The speedup of a device over a CPU core (CostHints::effective_speedup()); 1 without hints.
  double speedup() const;
  // The estimated time on an executor of `kind`, if the task gave one.
  std::optional<double> estimate(ExecutorKind kind) const;

 private:
  const detail::TaskState* task_;
  const StagingHook* hook_;
};

// An executor as a policy sees it.
struct ExecutorView {
  ExecutorId id;
  ExecutorKind kind = ExecutorKind::cpu;
  std::string_view name;
  std::string_view device;             // the device it drives; empty for host executors
  std::optional<std::uint32_t> space;  // the memory space its tasks' data is staged into, if known
  std::size_t queued = 0;              // ready tasks waiting for one of its workers
  unsigned workers = 1;

  // Queued tasks per worker.
  double load() const { return static_cast<double>(queued) / static_cast<double>(workers); }
};

}  // namespace strata::runtime
