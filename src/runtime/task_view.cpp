// TaskView: a policy's read-only window onto a ready task's record.

#include "strata/runtime/task_view.hpp"

#include <algorithm>

#include "strata/runtime/staging.hpp"
#include "task_state.hpp"

namespace strata::runtime {

const std::string& TaskView::name() const {
  return task_->name;
}

std::uint64_t TaskView::id() const {
  return task_->id;
}

Priority TaskView::priority() const {
  return task_->priority;
}

std::span<const ExecutorId> TaskView::candidates() const {
  return task_->candidates;
}

std::span<const DataAccess> TaskView::accesses() const {
  return task_->accesses;
}

std::uint64_t TaskView::bytes() const {
  return task_->bytes;
}

std::vector<std::uint32_t> TaskView::valid_copies(const DataHandle& data) const {
  if (hook_ == nullptr) return {};
  return hook_->valid_copies(data);
}

std::uint64_t TaskView::bytes_in(std::uint32_t space) const {
  if (hook_ == nullptr) return 0;
  std::uint64_t bytes = 0;
  for (const DataAccess& access : task_->accesses) {
    const std::vector<std::uint32_t> spaces = hook_->valid_copies(access.data);
    if (std::find(spaces.begin(), spaces.end(), space) != spaces.end()) {
      bytes += access.data.bytes();
    }
  }
  return bytes;
}

const CostHints* TaskView::hints() const {
  return task_->hints.get();
}

double TaskView::speedup() const {
  return task_->hints ? task_->hints->effective_speedup() : 1.0;
}

std::optional<double> TaskView::estimate(ExecutorKind kind) const {
  if (!task_->hints) return std::nullopt;
  return task_->hints->estimate(kind);
}

}  // namespace strata::runtime
