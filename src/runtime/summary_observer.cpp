#include "summary_observer.hpp"

#include <algorithm>

namespace strata::runtime::detail {

void SummaryObserver::on_finish(std::string_view /*name*/, std::uint64_t /*task_id*/,
                                TaskStatus status) {
  switch (status) {
    case TaskStatus::succeeded: {
      const WorkerIdentity& me = current_worker();
      if (me.executor != nullptr && owns_(me.executor)) {
        std::atomic<std::uint64_t>& mine = me.executor->counters(me.worker).succeeded;
        mine.store(mine.load(std::memory_order_relaxed) + 1,
                   std::memory_order_relaxed);  // only this worker writes it
        return;
      }
      succeeded_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    case TaskStatus::failed:
      failed_.fetch_add(1, std::memory_order_relaxed);
      return;
    default:
      cancelled_.fetch_add(1, std::memory_order_relaxed);
      return;
  }
}

RunSummary SummaryObserver::summary(std::span<const Executor* const> executors,
                                    double wall_seconds) const {
  RunSummary summary;
  summary.wall_seconds = wall_seconds;
  summary.tasks_succeeded = succeeded_.load();
  summary.tasks_failed = failed_.load();
  summary.tasks_cancelled = cancelled_.load();
  for (const Executor* executor : executors) {
    ExecutorSummary entry{executor->name(), executor->worker_count(), 0, 0, 0};
    for (unsigned w = 0; w < executor->worker_count(); ++w) {
      entry.busy_seconds += static_cast<double>(executor->busy_ns(w)) / 1e9;
      entry.tasks += executor->counters(w).tasks.load();
      summary.tasks_succeeded += executor->counters(w).succeeded.load();
    }
    if (wall_seconds > 0) {
      entry.utilization =
          std::min(1.0, entry.busy_seconds / (wall_seconds * executor->worker_count()));
    }
    summary.executors.push_back(std::move(entry));
  }
  return summary;
}

}  // namespace strata::runtime::detail
