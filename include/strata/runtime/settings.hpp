#pragma once
// The runtime's settings: its thread pools, back-pressure on submitters, the staging look-ahead,
// the placement policy, the run-time history and the trace. Declared into the configuration table
// by every program that includes this.

#include <cstdint>
#include <string>

namespace strata::runtime {

struct RuntimeSettings {
  unsigned cpu_threads = 0;  // 0: one per core
  unsigned io_threads = 2;   // threads of the I/O pool
  // Submitted but unfinished tasks before submit waits.
  std::uint64_t max_tasks_in_flight = 1u << 18;
  std::uint64_t staging_max_bytes = 1ull << 30;  // bytes staged ahead per executor
  std::uint64_t staging_max_tasks = 64;          // tasks staged ahead per executor
  std::string trace;                             // Chrome trace-event JSON written at shutdown
  // How a task that may run on several executors gets one (make_placement_policy's names).
  std::string placement = "least-loaded";
  unsigned transfer_impact_percent = 25;  // pats-dl: the share of a task's time transfers take
  std::string history;                    // learned run times, read at start, written at the end

  // The number of CPU worker threads these settings yield on this machine.
  unsigned effective_cpu_threads() const;
};

// Adds the section "runtime" to the table (once); true.
bool declare_runtime_settings();
inline const bool runtime_settings_declared = declare_runtime_settings();

}  // namespace strata::runtime
