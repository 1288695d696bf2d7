// Executors: separate pools per resource, added executors, placement among candidates.

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "strata/runtime/runtime.hpp"
#include "strata/runtime/thread_pool_executor.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::Gate;

TEST(Executors, SlowIoDoesNotOccupyComputeWorkers) {
  Runtime rt(testing::small_config(1, 1));
  Gate gate;
  TaskHandle slow_io = rt.submit(TaskSpec("slow read").on(rt.io()), [&] { gate.pass(); });
  bool computed = false;
  rt.submit(TaskSpec("compute"), [&] { computed = true; }).wait();  // runs while I/O blocks
  EXPECT_TRUE(computed);
  EXPECT_FALSE(slow_io.done());
  gate.open();
  rt.wait_all();
}

TEST(Executors, TasksRunOnTheExecutorTheyName) {
  Runtime rt(testing::small_config(1, 1));
  const ExecutorId device = rt.add_executor(
      std::make_unique<ThreadPoolExecutor>("device0", 1, make_priority_fifo_policy()));
  std::thread::id device_thread;
  ExecutorId seen{99};
  rt.submit(TaskSpec("kernel").on(device), [&](TaskContext& context) {
      device_thread = std::this_thread::get_id();
      seen = context.executor();
    }).wait();
  EXPECT_EQ(seen, device);
  EXPECT_NE(device_thread, std::this_thread::get_id());
  EXPECT_EQ(rt.executor(device).name(), "device0");
  EXPECT_EQ(rt.summary().executors.at(device.index).tasks, 1u);
}

// Always picks the last candidate.
class LastCandidate final : public PlacementPolicy {
 public:
  std::size_t choose(const TaskView&, std::span<const ExecutorView> candidates) override {
    return candidates.size() - 1;
  }
};

TEST(Executors, PlacementPolicyChoosesAmongCandidates) {
  Runtime rt(testing::small_config(1, 1));
  const ExecutorId device = rt.add_executor(
      std::make_unique<ThreadPoolExecutor>("device0", 1, make_priority_fifo_policy()));
  rt.set_placement_policy(std::make_unique<LastCandidate>());
  std::atomic<int> on_device{0};
  for (int i = 0; i < 20; ++i) {
    rt.submit(TaskSpec("either").on(rt.cpu()).on(device), [&](TaskContext& context) {
      if (context.executor() == device) on_device.fetch_add(1);
    });
  }
  rt.wait_all();
  EXPECT_EQ(on_device.load(), 20);
}

TEST(Executors, LeastLoadedPlacementAvoidsABusyExecutor) {
  Runtime rt(testing::small_config(1, 1));
  const ExecutorId device = rt.add_executor(
      std::make_unique<ThreadPoolExecutor>("device0", 1, make_priority_fifo_policy()));
  Gate gate;
  rt.submit([&] { gate.pass(); });  // cpu worker busy
  for (int i = 0; i < 5; ++i)
    rt.submit([] {});  // and 5 queued behind it
  std::atomic<int> on_device{0};
  for (int i = 0; i < 3; ++i) {
    rt.submit(TaskSpec("either").on(rt.cpu()).on(device), [&](TaskContext& context) {
      if (context.executor() == device) on_device.fetch_add(1);
    });
  }
  gate.open();
  rt.wait_all();
  EXPECT_EQ(on_device.load(), 3);
}

TEST(Executors, SummaryReportsBusyTimeAndUtilization) {
  Runtime rt(testing::small_config(2, 1));
  for (int i = 0; i < 4; ++i) {
    rt.submit([] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); });
  }
  rt.wait_all();
  const RunSummary summary = rt.summary();
  ASSERT_GE(summary.executors.size(), 2u);
  EXPECT_EQ(summary.executors[0].name, "cpu");
  EXPECT_EQ(summary.executors[0].tasks, 4u);
  EXPECT_GE(summary.executors[0].busy_seconds, 0.019);
  EXPECT_GT(summary.executors[0].utilization, 0.0);
  EXPECT_LE(summary.executors[0].utilization, 1.0);
  EXPECT_NE(summary.format().find("cpu"), std::string::npos);
}

// An executor without workers that keeps the runner the runtime starts it with.
class RunnerProbe final : public Executor {
 public:
  RunnerProbe() : Executor("probe", 1) {}
  void start(TaskRunner& started_with) override { runner = &started_with; }
  void enqueue(ReadyTask*) override { ADD_FAILURE() << "no task names the probe"; }
  std::size_t queued() const override { return 0; }
  bool run_one(unsigned) override { return false; }
  void stop() override {}
  TaskRunner* runner = nullptr;
};

TEST(Executors, TheRunnerKnowsWhileACompletionIsPending) {
  Runtime rt(testing::small_config(1, 1));
  auto owned = std::make_unique<RunnerProbe>();
  RunnerProbe& probe = *owned;
  rt.add_executor(std::move(owned));
  ASSERT_NE(probe.runner, nullptr);
  EXPECT_FALSE(probe.runner->completions_pending());
  std::promise<DeferredCompletion> handed;
  TaskHandle copy = rt.submit(TaskSpec("async copy"), [&](TaskContext& context) {
    handed.set_value(context.defer_completion());
  });
  DeferredCompletion completion = handed.get_future().get();
  EXPECT_TRUE(probe.runner->completions_pending());
  completion.complete();
  copy.wait();
  EXPECT_FALSE(probe.runner->completions_pending());
  rt.wait_all();
}

// A runner that counts how often a pool asks it for pending completions.
class PendingRunner final : public TaskRunner {
 public:
  void run(ReadyTask*, Executor&, unsigned) override { ADD_FAILURE() << "no task was queued"; }
  bool completions_pending() const override {
    asked.fetch_add(1);
    return pending.load();
  }
  mutable std::atomic<int> asked{0};
  std::atomic<bool> pending{true};
};

TEST(Executors, AnIdleWorkerWatchesPendingCompletionsOnlyWhenAskedTo) {
  PendingRunner watched;
  PendingRunner ignored;
  ThreadPoolExecutor watching("watching", 1, make_priority_fifo_policy(),
                              ThreadPoolExecutor::IdleSpin::while_completions_pending);
  ThreadPoolExecutor brief("brief", 1, make_priority_fifo_policy());
  watching.start(watched);
  brief.start(ignored);
  // The idle worker spins from its start; past the brief spin it asks whether to go on.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (watched.asked.load() == 0 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GT(watched.asked.load(), 0);
  watched.pending = false;  // then it stops spinning and rests
  watching.stop();
  brief.stop();
  EXPECT_EQ(ignored.asked.load(), 0);
}

}  // namespace
}  // namespace strata::runtime
