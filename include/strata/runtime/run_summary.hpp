#pragma once
// The end-of-run view: busy time and utilization per executor, and task counts.

#include <cstdint>
#include <string>
#include <vector>

namespace strata::runtime {

// Busy time of one executor over the run (the rocket paper's Fig. 8 view).
struct ExecutorSummary {
  std::string name;
  unsigned workers = 0;
  double busy_seconds = 0;  // summed over workers
  double utilization = 0;   // busy / (wall x workers), in [0, 1]
  std::uint64_t tasks = 0;
};

// What a runtime did since it started.
struct RunSummary {
  double wall_seconds = 0;
  std::uint64_t tasks_succeeded = 0;
  std::uint64_t tasks_failed = 0;
  std::uint64_t tasks_cancelled = 0;
  std::vector<ExecutorSummary> executors;
  std::string staging;  // what the staging hook reports (the memory manager's statistics)

  // A small table for terminals.
  std::string format() const;
};

}  // namespace strata::runtime
