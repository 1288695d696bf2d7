// Randomized stress for queue order: random tasks over shared data, on the CPU pool and on two
// in-order queues (with and without TaskSpec::in_queue_order(), completions reported in and out
// of order); every value a task reads and every final datum must equal a sequential execution in
// submission order.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "fake_queue.hpp"
#include "random_graph_reference.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/thread_pool_executor.hpp"

namespace strata::runtime {
namespace {

using stress::apply;
using stress::max_accesses;
using stress::mix;
using stress::PlannedAccess;

enum class Where { cpu, queue_a, queue_b, queue_a_unpromised };

struct PlannedQueueTask {
  std::uint64_t id;
  std::vector<PlannedAccess> accesses;
  Where where;
};

std::vector<PlannedQueueTask> plan_queue_tasks(std::mt19937_64& random, int tasks, int data_items) {
  std::vector<PlannedQueueTask> planned(tasks);
  std::uniform_int_distribution<int> datum(0, data_items - 1);
  std::discrete_distribution<int> mode({45, 20, 25, 10});  // read, write, read_write, reduce
  std::discrete_distribution<int> where({20, 40, 30, 10});
  for (int t = 0; t < tasks; ++t) {
    PlannedQueueTask& task = planned[t];
    task.id = static_cast<std::uint64_t>(t) + 1;
    const int count = 1 + static_cast<int>(random() % max_accesses);
    for (int a = 0; a < count; ++a) {
      const int d = datum(random);
      bool duplicate = false;
      for (const auto& seen : task.accesses)
        duplicate |= seen.datum == d;
      if (!duplicate) task.accesses.push_back({d, static_cast<Access>(mode(random))});
    }
    task.where = static_cast<Where>(where(random));
  }
  return planned;
}

void run_and_compare(std::uint64_t seed, int tasks, int data_items) {
  std::mt19937_64 random(seed);
  const std::vector<PlannedQueueTask> planned = plan_queue_tasks(random, tasks, data_items);
  const stress::SequentialRun expected = stress::run_sequentially(planned, seed, data_items);
  std::vector<std::uint64_t> actual_data = expected.start;
  std::vector<std::array<std::uint64_t, max_accesses>> actual_seen(tasks);

  testing::FakeQueue queue_a(3), queue_b(5);  // every 3rd / 5th completion arrives late
  Config config;
  config.section<RuntimeSettings>().cpu_threads = 2;
  config.section<RuntimeSettings>().max_tasks_in_flight = 512;
  {
    Runtime rt(config);
    const ExecutorId a =
        rt.add_executor(std::make_unique<ThreadPoolExecutor>("a", 1, make_priority_fifo_policy()));
    const ExecutorId b =
        rt.add_executor(std::make_unique<ThreadPoolExecutor>("b", 1, make_priority_fifo_policy()));
    std::vector<DataHandle> handles;
    for (int d = 0; d < data_items; ++d)
      handles.push_back(rt.create_data("d" + std::to_string(d)));
    for (int t = 0; t < tasks; ++t) {
      const PlannedQueueTask& task = planned[t];
      TaskSpec spec("random");
      for (const auto& access : task.accesses)
        spec.access(handles[access.datum], access.mode);
      const auto work = [&, t] { apply(planned[t], actual_data, actual_seen[t]); };
      if (task.where == Where::cpu) {
        rt.submit(std::move(spec), work);
        continue;
      }
      testing::FakeQueue& queue = task.where == Where::queue_b ? queue_b : queue_a;
      spec.on(task.where == Where::queue_b ? b : a);
      if (task.where != Where::queue_a_unpromised) spec.in_queue_order();
      rt.submit(std::move(spec), [&queue, work](TaskContext& context) {
        queue.enqueue(work, context.defer_completion());
      });
    }
    rt.wait_all();
    EXPECT_EQ(rt.summary().tasks_succeeded, static_cast<std::uint64_t>(tasks));
  }
  EXPECT_TRUE(
      stress::same_as_sequential(actual_seen, expected.seen, actual_data, expected.data, seed));
}

TEST(QueueOrderStress, RandomTasksOnQueuesAndTheCpuEqualSequentialExecution) {
  for (std::uint64_t seed = 100; seed < 106; ++seed)
    run_and_compare(seed, 5'000, 12);
}

TEST(QueueOrderStress, LongChainsOverFewDataEqualSequentialExecution) {
  run_and_compare(7, 30'000, 3);
}

}  // namespace
}  // namespace strata::runtime
