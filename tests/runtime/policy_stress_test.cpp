// Randomized stress of placement policies: random DAGs whose tasks may run on several executors
// (CPU pool, I/O pool, a "gpu" registered as a device compute queue), under least-loaded push,
// PATS pull and locality placement, with 1, 2 and 4 CPU workers and tasks that wait for pooled
// children; every value a task reads and every final datum must equal a sequential execution in
// submission order.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <random>
#include <vector>

#include "random_graph_reference.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/staging.hpp"
#include "strata/runtime/thread_pool_executor.hpp"

namespace strata::runtime {
namespace {

using stress::apply;
using stress::max_accesses;
using stress::mix;
using stress::PlannedAccess;

struct PlannedPolicyTask {
  std::uint64_t id;
  std::vector<PlannedAccess> accesses;
  std::vector<int> after;
  Priority priority;
  std::uint32_t candidates;  // bit 0: cpu, 1: gpu, 2: io (at least one)
  double speedup;
  int children;  // pooled children it submits and waits for
};

std::vector<PlannedPolicyTask> plan_policy_tasks(std::mt19937_64& random, int tasks,
                                                 int data_items) {
  std::vector<PlannedPolicyTask> planned(tasks);
  std::uniform_int_distribution<int> datum(0, data_items - 1);
  std::discrete_distribution<int> mode({45, 20, 20, 15});
  std::uniform_real_distribution<double> speedup(1.0, 20.0);
  for (int t = 0; t < tasks; ++t) {
    PlannedPolicyTask& task = planned[t];
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
    task.candidates = 1 + static_cast<std::uint32_t>(random() % 7);
    task.speedup = speedup(random);
    task.children = random() % 16 == 0 ? 1 + static_cast<int>(random() % 3) : 0;
  }
  return planned;
}

// Reports data with an odd id as valid on the gpu's space only, the rest on the host's.
class AlternatingLocations final : public StagingHook {
 public:
  AlternatingLocations(ExecutorId gpu) : gpu_(gpu) {}
  void stage(const StagingRequest&, std::function<void(std::exception_ptr)> done) override {
    done(nullptr);
  }
  void unstage(const StagingRequest&) override {}
  std::vector<std::uint32_t> valid_copies(const DataHandle& data) const override {
    return {data.id() % 2 == 1 ? 2u : 0u};
  }
  std::optional<std::uint32_t> memory_space(ExecutorId executor) const override {
    return executor == gpu_ ? 2u : 0u;
  }

 private:
  ExecutorId gpu_;
};

enum class Policy { least_loaded, pats, locality };

void run_and_compare(std::uint64_t seed, int tasks, int data_items, unsigned cpu_threads,
                     Policy policy) {
  std::mt19937_64 random(seed);
  const std::vector<PlannedPolicyTask> planned = plan_policy_tasks(random, tasks, data_items);
  const stress::SequentialRun expected = stress::run_sequentially(planned, seed, data_items);
  std::vector<std::uint64_t> actual_data = expected.start;
  std::vector<std::array<std::uint64_t, max_accesses>> actual_seen(tasks);
  int expected_children = 0;
  for (const PlannedPolicyTask& task : planned)
    expected_children += task.children;

  Config config;
  config.section<runtime::RuntimeSettings>().cpu_threads = cpu_threads;
  config.section<runtime::RuntimeSettings>().io_threads = 1;
  config.section<runtime::RuntimeSettings>().max_tasks_in_flight = 512;  // back-pressure too
  std::atomic<int> children_ran{0};
  {
    Runtime rt(config);
    auto device = std::make_unique<ThreadPoolExecutor>("gpu", 1, make_priority_fifo_policy());
    device->set_kind(ExecutorKind::device_compute, "gpu0");
    const ExecutorId gpu = rt.add_executor(std::move(device));
    AlternatingLocations hook(gpu);
    rt.set_staging_hook(&hook);
    switch (policy) {
      case Policy::least_loaded:
        break;
      case Policy::pats:
        rt.set_placement_policy(make_pats_policy({0.3}));
        break;
      case Policy::locality:
        rt.set_placement_policy(make_locality_placement());
        break;
    }
    const ExecutorId executors[3] = {rt.cpu(), gpu, rt.io()};
    std::vector<DataHandle> handles;
    for (int d = 0; d < data_items; ++d)
      handles.push_back(rt.create_data("d" + std::to_string(d), 64));
    std::vector<TaskHandle> submitted;
    submitted.reserve(tasks);
    for (int t = 0; t < tasks; ++t) {
      const PlannedPolicyTask& task = planned[t];
      TaskSpec spec("random");
      spec.with_priority(task.priority).with_speedup(task.speedup);
      for (int e = 0; e < 3; ++e)
        if (task.candidates & (1u << e)) spec.on(executors[e]);
      for (const auto& [datum, mode] : task.accesses)
        spec.access(handles[datum], mode);
      for (int before : task.after)
        spec.after(submitted[before]);
      submitted.push_back(rt.submit(std::move(spec), [&, t](TaskContext& context) {
        const PlannedPolicyTask& me = planned[t];
        std::vector<TaskHandle> children;
        for (int c = 0; c < me.children; ++c) {
          children.push_back(context.runtime().submit(
              TaskSpec("child").on(executors[0]).on(executors[1]).with_speedup(1 + c),
              [&] { children_ran.fetch_add(1); }));
        }
        for (const TaskHandle& child : children)
          child.wait();
        apply(me, actual_data, actual_seen[t]);
      }));
    }
    rt.wait_all();
    EXPECT_EQ(rt.summary().tasks_succeeded, static_cast<std::uint64_t>(tasks + expected_children));
  }
  EXPECT_EQ(children_ran.load(), expected_children);
  EXPECT_TRUE(
      stress::same_as_sequential(actual_seen, expected.seen, actual_data, expected.data, seed));
}

const char* policy_name(Policy policy) {
  static const char* const names[] = {"least_loaded", "pats", "locality"};
  return names[static_cast<int>(policy)];
}

// How GoogleTest prints the parameter (test lists, failures): the policy's name, not a dump.
void PrintTo(Policy policy, std::ostream* out) {
  *out << policy_name(policy);
}

class PolicyStress : public ::testing::TestWithParam<std::tuple<Policy, unsigned>> {};

TEST_P(PolicyStress, RandomGraphsOfMultiCandidateTasksEqualSequentialExecution) {
  const auto [policy, workers] = GetParam();
  for (std::uint64_t seed = 100; seed < 108; ++seed)
    run_and_compare(seed + workers * 10, 2'000, 24, workers, policy);
}

std::string policy_case_name(const ::testing::TestParamInfo<std::tuple<Policy, unsigned>>& param) {
  return std::string(policy_name(std::get<0>(param.param))) + "_" +
         std::to_string(std::get<1>(param.param)) + "_workers";
}

INSTANTIATE_TEST_SUITE_P(Policies, PolicyStress,
                         ::testing::Combine(::testing::Values(Policy::least_loaded, Policy::pats,
                                                              Policy::locality),
                                            ::testing::Values(1u, 2u, 4u)),
                         policy_case_name);

}  // namespace
}  // namespace strata::runtime
