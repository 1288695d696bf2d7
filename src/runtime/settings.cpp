#include "strata/runtime/settings.hpp"

#include <algorithm>
#include <thread>

#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"

namespace strata::runtime {

unsigned RuntimeSettings::effective_cpu_threads() const {
  if (cpu_threads != 0) return cpu_threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

bool declare_runtime_settings() {
  return declare_settings(
      {"runtime",
       Layer::runtime,
       "thread pools, back-pressure, staging look-ahead, placement, run-time history, the trace",
       {
           count_setting<&RuntimeSettings::cpu_threads>(
               "cpu_threads", 0,
               "Worker threads of the CPU compute pool, 0 to 4294967295; 0 means one per core."),
           count_setting<&RuntimeSettings::io_threads>(
               "io_threads", 1,
               "Worker threads of the I/O pool, 1 to 4294967295; slow I/O never occupies compute "
               "threads."),
           count_setting<&RuntimeSettings::max_tasks_in_flight>(
               "max_tasks_in_flight", 1,
               "Submitted but unfinished tasks before submit() waits (back-pressure on "
               "submitters), 1 to 18446744073709551615."),
           bytes_setting<&RuntimeSettings::staging_max_bytes>(
               "staging_max_bytes", 1,
               "Bytes of task data staged ahead per executor (look-ahead budget; data that "
               "several staged tasks use counts once), 1 B to 18446744073709551615 B (16 EiB - 1 "
               "B); a larger single task is still admitted alone."),
           count_setting<&RuntimeSettings::staging_max_tasks>(
               "staging_max_tasks", 1,
               "Tasks with data staged ahead per executor (look-ahead depth), 1 to "
               "18446744073709551615."),
           choice_setting<&RuntimeSettings::placement>(
               "placement", "policy", {"least-loaded", "locality", "pats", "pats-dl", "fcfs"},
               "How a task that may run on several executors (a kernel launch on any device of "
               "the rank) gets one: least-loaded (the shortest queue when it becomes ready), "
               "locality (where most of its data lies), pats (the region-templates paper's "
               "Performance Aware Task Scheduling: an idle device takes the ready task with the "
               "largest speedup, an idle CPU the smallest), pats-dl (PATS preferring a task "
               "whose data the device holds when Sd >= Sq * (1 - transfer_impact)) or fcfs "
               "(whichever is idle takes the oldest ready task)."),
           count_setting<&RuntimeSettings::transfer_impact_percent>(
               "transfer_impact_percent", 1, 100,
               "pats-dl: the share of a task's time that its transfers take, in percent, 1 to "
               "100; the larger, the more speedup a device gives up for a task whose data it "
               "holds."),
           text_setting<&RuntimeSettings::history>(
               "history", "path",
               "A file of measured run times per kernel, input-size bucket and executor kind "
               "(JSON), read at start and rewritten at the end: the speedups PATS uses where a "
               "launch gives none. Empty: learned for this run only."),
           text_setting<&RuntimeSettings::trace>(
               "trace", "path",
               "Write a Chrome trace-event JSON of every task (opens in Perfetto) to this file at "
               "shutdown; empty: no trace."),
       }});
}

}  // namespace strata::runtime
