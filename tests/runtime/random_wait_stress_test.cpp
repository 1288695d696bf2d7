// Randomized stress with waits inside tasks: random graphs over shared data in which some tasks
// wait for an earlier task, or submit children (which may wait and submit grandchildren) and wait
// for them. Every graph is acyclic, so every seed must finish, on 1, 2 and 4 workers, with a
// small staging budget; every value read and every final datum must equal a sequential run.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "random_graph_reference.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::runtime {
namespace {

using stress::mix;
using stress::PlannedAccess;

// Work a task does inside its body: wait for an earlier top-level task, then run children.
struct Inner {
  int waits_for = -1;  // index of an earlier top-level task, or -1
  std::vector<Inner> children;
};

struct PlannedWaitingTask {
  std::uint64_t id;
  std::vector<PlannedAccess> accesses;
  int after = -1;  // explicit dependency on an earlier task, or -1
  bool on_io = false;
  Inner inner;
};

// What a child (and its own children) computes: a function of its place in the tree alone.
std::uint64_t child_value(const Inner& child, std::uint64_t path) {
  std::uint64_t value = mix(path, 7);
  for (std::size_t k = 0; k < child.children.size(); ++k)
    value = mix(value, child_value(child.children[k], mix(path, k + 1)));
  return value;
}

std::uint64_t children_value(const Inner& inner, std::uint64_t id) {
  std::uint64_t value = 0;
  for (std::size_t k = 0; k < inner.children.size(); ++k)
    value = mix(value, child_value(inner.children[k], mix(id, k + 1)));
  return value;
}

// The task's effect on the shared data, given what its children computed.
std::uint64_t apply(const PlannedWaitingTask& task, std::uint64_t from_children,
                    std::vector<std::uint64_t>& data) {
  std::uint64_t seen = mix(task.id, from_children);
  for (const auto& access : task.accesses) {
    if (access.mode == Access::read || access.mode == Access::read_write) {
      seen = mix(seen, data[access.datum]);
    }
  }
  for (const auto& access : task.accesses) {
    auto& value = data[access.datum];
    if (access.mode == Access::write) value = mix(seen, 1);
    if (access.mode == Access::read_write) value = mix(value, seen);
    if (access.mode == Access::reduce) value += task.id * 0x100000001B3ull;
  }
  return seen;
}

Inner plan_inner(std::mt19937_64& random, int task_index, int depth, int waiting_percent) {
  Inner inner;
  if (task_index > 0 && random() % 100 < 30) {
    inner.waits_for = static_cast<int>(random() % task_index);
  }
  if (depth < 3 && static_cast<int>(random() % 100) < (depth == 0 ? 100 : waiting_percent * 3)) {
    const int children = 1 + static_cast<int>(random() % 3);
    for (int k = 0; k < children; ++k)
      inner.children.push_back(plan_inner(random, task_index, depth + 1, waiting_percent));
  }
  return inner;
}

std::vector<PlannedWaitingTask> plan_waiting_tasks(std::mt19937_64& random, int tasks,
                                                   int data_items, int waiting_percent) {
  std::vector<PlannedWaitingTask> planned(tasks);
  std::discrete_distribution<int> mode({45, 20, 20, 15});  // read, write, read_write, reduce
  for (int t = 0; t < tasks; ++t) {
    PlannedWaitingTask& task = planned[t];
    task.id = static_cast<std::uint64_t>(t) + 1;
    const int count = static_cast<int>(random() % 4);
    for (int a = 0; a < count; ++a) {
      const int d = static_cast<int>(random() % static_cast<unsigned>(data_items));
      bool duplicate = false;
      for (const auto& seen : task.accesses)
        duplicate |= seen.datum == d;
      if (!duplicate) task.accesses.push_back({d, static_cast<Access>(mode(random))});
    }
    if (t > 0 && random() % 4 == 0) task.after = static_cast<int>(random() % t);
    task.on_io = random() % 8 == 0;
    if (static_cast<int>(random() % 100) < waiting_percent) {
      task.inner = plan_inner(random, t, 0, waiting_percent);
    }
  }
  return planned;
}

// Runs `inner` inside a task: its wait, then its children as tasks, each writing a datum of its
// own; returns the children's values folded from `start`, as child_value() does.
std::uint64_t run_inner(Runtime& rt, const std::vector<TaskHandle>& top, const Inner& inner,
                        std::uint64_t path, std::uint64_t start) {
  if (inner.waits_for >= 0) top[static_cast<std::size_t>(inner.waits_for)].wait();
  std::vector<std::uint64_t> values(inner.children.size());
  std::vector<TaskHandle> children;
  for (std::size_t k = 0; k < inner.children.size(); ++k) {
    const DataHandle own = rt.create_data("child", 1);
    children.push_back(rt.submit(
        TaskSpec("child").writes(own),
        [&rt, &top, &child = inner.children[k], &value = values[k], path = mix(path, k + 1)] {
          value = run_inner(rt, top, child, path, mix(path, 7));
        }));
  }
  for (const TaskHandle& child : children)
    child.wait();
  std::uint64_t value = start;
  for (std::uint64_t v : values)
    value = mix(value, v);
  return value;
}

void run_and_compare(std::uint64_t seed, int tasks, int data_items, unsigned cpu_threads,
                     int waiting_percent) {
  std::mt19937_64 random(seed);
  const std::vector<PlannedWaitingTask> planned =
      plan_waiting_tasks(random, tasks, data_items, waiting_percent);

  std::vector<std::uint64_t> expected_data(data_items);
  for (int d = 0; d < data_items; ++d)
    expected_data[d] = mix(seed, d);
  std::vector<std::uint64_t> actual_data = expected_data;
  std::vector<std::uint64_t> expected_seen(tasks), actual_seen(tasks);
  for (int t = 0; t < tasks; ++t) {
    expected_seen[t] =
        apply(planned[t], children_value(planned[t].inner, planned[t].id), expected_data);
  }

  Config config;
  config.section<runtime::RuntimeSettings>().cpu_threads = cpu_threads;
  config.section<runtime::RuntimeSettings>().io_threads = 2;
  config.section<runtime::RuntimeSettings>().max_tasks_in_flight = 2048;
  config.section<runtime::RuntimeSettings>().staging_max_tasks =
      8;  // waiting tasks fill it quickly
  {
    Runtime rt(config);
    std::vector<DataHandle> handles;
    for (int d = 0; d < data_items; ++d)
      handles.push_back(rt.create_data("d" + std::to_string(d), 1));
    std::vector<TaskHandle> submitted(tasks);
    for (int t = 0; t < tasks; ++t) {
      const PlannedWaitingTask& task = planned[t];
      TaskSpec spec("random");
      if (task.on_io) spec.on(rt.io());
      for (const auto& access : task.accesses)
        spec.access(handles[access.datum], access.mode);
      if (task.after >= 0) spec.after(submitted[task.after]);
      submitted[t] = rt.submit(std::move(spec), [&, t] {
        const PlannedWaitingTask& me = planned[t];
        const std::uint64_t from_children = run_inner(rt, submitted, me.inner, me.id, 0);
        actual_seen[t] = apply(me, from_children, actual_data);
      });
    }
    rt.wait_all();
  }
  EXPECT_TRUE(
      stress::same_as_sequential(actual_seen, expected_seen, actual_data, expected_data, seed));
}

TEST(RandomWaitStress, ManySeedsOnOneTwoAndFourWorkers) {
  for (unsigned workers : {1u, 2u, 4u}) {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      SCOPED_TRACE(testing::Message() << workers << " workers, seed " << seed);
      run_and_compare(seed * 31 + workers, 2'000, 32, workers, 5);
    }
  }
}

TEST(RandomWaitStress, ALargeGraphWithOnePercentWaitingParents) {
  run_and_compare(1'000'003, 100'000, 256, 2, 1);
}

}  // namespace
}  // namespace strata::runtime
