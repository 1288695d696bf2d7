#pragma once
// SummaryObserver: the run summary as an observer of task events. It counts finished tasks by
// status where they finish — on a worker of its runtime in that worker's own counters (no
// counter shared by all workers is written per task), elsewhere in shared ones — and assembles
// the RunSummary from those counts and the executors' busy time. The runtime installs it ahead
// of any other observer; front ends add theirs beside it (Runtime::add_observer).

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "strata/runtime/executor.hpp"
#include "strata/runtime/run_summary.hpp"
#include "strata/runtime/task_observer.hpp"

namespace strata::runtime::detail {

class SummaryObserver final : public TaskObserver {
 public:
  // `owns(executor)`: whether an executor is one of the observed runtime's.
  explicit SummaryObserver(std::function<bool(const Executor*)> owns) : owns_(std::move(owns)) {}

  void on_finish(std::string_view name, std::uint64_t task_id, TaskStatus status) override;

  // Counts and busy time of `executors` over `wall_seconds`.
  RunSummary summary(std::span<const Executor* const> executors, double wall_seconds) const;

 private:
  std::function<bool(const Executor*)> owns_;
  alignas(64) std::atomic<std::uint64_t> succeeded_{0};  // finished off the runtime's workers
  std::atomic<std::uint64_t> failed_{0};
  std::atomic<std::uint64_t> cancelled_{0};
};

}  // namespace strata::runtime::detail
