// Randomized stress: DAGs of 100,000 tasks with random data accesses, explicit dependencies,
// priorities and executors; every value a task reads and every final datum must equal a
// sequential execution in submission order.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "random_graph_reference.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::runtime {
namespace {

using stress::apply;
using stress::max_accesses;
using stress::mix;
using stress::PlannedAccess;

struct PlannedTask {
  std::uint64_t id;
  std::vector<PlannedAccess> accesses;
  std::vector<int> after;  // indices of earlier tasks
  Priority priority;
  bool on_io;
};

std::vector<PlannedTask> plan(std::mt19937_64& random, int tasks, int data_items) {
  std::vector<PlannedTask> planned(tasks);
  std::uniform_int_distribution<int> datum(0, data_items - 1);
  std::discrete_distribution<int> mode({45, 20, 20, 15});  // read, write, read_write, reduce
  for (int t = 0; t < tasks; ++t) {
    PlannedTask& task = planned[t];
    task.id = static_cast<std::uint64_t>(t) + 1;
    const int count = static_cast<int>(random() % (max_accesses + 1));
    for (int a = 0; a < count; ++a) {
      const int d = datum(random);
      bool duplicate = false;
      for (const auto& seen : task.accesses)
        duplicate |= seen.datum == d;
      if (!duplicate) task.accesses.push_back({d, static_cast<Access>(mode(random))});
    }
    if (t > 0 && random() % 4 == 0) task.after.push_back(static_cast<int>(random() % t));
    task.priority = static_cast<Priority>(random() % priority_levels);
    task.on_io = random() % 8 == 0;
  }
  return planned;
}

void run_and_compare(std::uint64_t seed, int tasks, int data_items, unsigned cpu_threads) {
  std::mt19937_64 random(seed);
  const std::vector<PlannedTask> planned = plan(random, tasks, data_items);

  const stress::SequentialRun expected = stress::run_sequentially(planned, seed, data_items);
  std::vector<std::uint64_t> actual_data = expected.start;
  std::vector<std::array<std::uint64_t, max_accesses>> actual_seen(tasks);

  Config config;
  config.section<runtime::RuntimeSettings>().cpu_threads = cpu_threads;
  config.section<runtime::RuntimeSettings>().io_threads = 2;
  config.section<runtime::RuntimeSettings>().max_tasks_in_flight =
      4096;  // exercise back-pressure as well
  {
    Runtime rt(config);
    std::vector<DataHandle> handles;
    for (int d = 0; d < data_items; ++d)
      handles.push_back(rt.create_data("d" + std::to_string(d)));
    std::vector<TaskHandle> submitted;
    submitted.reserve(tasks);
    for (int t = 0; t < tasks; ++t) {
      const PlannedTask& task = planned[t];
      TaskSpec spec("random");
      spec.with_priority(task.priority);
      if (task.on_io) spec.on(rt.io());
      for (const auto& access : task.accesses)
        spec.access(handles[access.datum], access.mode);
      for (int before : task.after)
        spec.after(submitted[before]);
      submitted.push_back(
          rt.submit(std::move(spec), [&, t] { apply(planned[t], actual_data, actual_seen[t]); }));
    }
    rt.wait_all();
    EXPECT_EQ(rt.summary().tasks_succeeded, static_cast<std::uint64_t>(tasks));
  }
  EXPECT_TRUE(
      stress::same_as_sequential(actual_seen, expected.seen, actual_data, expected.data, seed));
}

TEST(RandomDagStress, HundredThousandTasksOverFewDataEqualSequentialExecution) {
  run_and_compare(1, 100'000, 64, 2);
}

TEST(RandomDagStress, HundredThousandTasksOverManyDataEqualSequentialExecution) {
  run_and_compare(2, 100'000, 4096, 2);
}

TEST(RandomDagStress, ManySeedsSmallGraphsMoreWorkers) {
  for (std::uint64_t seed = 10; seed < 30; ++seed)
    run_and_compare(seed, 3'000, 16, 4);
}

}  // namespace
}  // namespace strata::runtime
