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
       "thread pools, back-pressure, staging look-ahead, the trace",
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
           text_setting<&RuntimeSettings::trace>(
               "trace", "path",
               "Write a Chrome trace-event JSON of every task (opens in Perfetto) to this file at "
               "shutdown; empty: no trace."),
       }});
}

}  // namespace strata::runtime
