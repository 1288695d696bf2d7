// PATS and pulled placement on a synthetic heterogeneous node: a "gpu-like" executor (one worker,
// registered as a device's compute queue) and a CPU pool; tasks carry known speedups, and each
// records which executor ran it. Also: what policies see (TaskView, ExecutorView), and that
// cancellation, failures, waits inside tasks and throttling keep working for pooled tasks.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "strata/runtime/device_executors.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/thread_pool_executor.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::BothTakePart;
using testing::eventually;
using testing::Gate;

// A runtime with one CPU worker and one "gpu" worker, both held busy by a gated task until the
// test has pooled its work (so the order the policy produces does not depend on timing).
struct HeldNode {
  explicit HeldNode(unsigned cpu_threads = 1) : rt(testing::small_config(cpu_threads, 1)) {
    auto device = std::make_unique<ThreadPoolExecutor>("gpu", 1, make_priority_fifo_policy());
    device->set_kind(ExecutorKind::device_compute, "gpu0");
    gpu = rt.add_executor(std::move(device));
  }
  ~HeldNode() {
    release();
    try {
      rt.wait_all();
    } catch (...) {
    }
  }
  void hold() {
    const unsigned cpu_workers = rt.executor(rt.cpu()).worker_count();
    for (unsigned i = 0; i < cpu_workers; ++i)
      rt.submit(TaskSpec("hold cpu"), [this] {
        started.fetch_add(1);
        gate.pass();
      });
    rt.submit(TaskSpec("hold gpu").on(gpu), [this] {
      started.fetch_add(1);
      gate.pass();
    });
    ASSERT_TRUE(eventually([&] { return started.load() == static_cast<int>(cpu_workers) + 1; }));
  }
  void release() {
    if (!released.exchange(true)) gate.open();
  }
  Runtime rt;
  ExecutorId gpu;
  Gate gate;
  std::atomic<int> started{0};
  std::atomic<bool> released{false};
};

struct Ran {
  ExecutorId executor;
  double speedup;
};

// Submits tasks with `speedups` that may run on the CPU pool or the gpu; returns what ran where,
// in the order each executor ran them.
// With `pulls`, the first task of each executor waits for the other's (see BothTakePart).
std::vector<Ran> run_pooled(HeldNode& node, const std::vector<double>& speedups, bool pulls) {
  std::mutex lock;
  std::vector<Ran> ran;
  BothTakePart both(node.rt.cpu(), node.gpu);
  node.hold();
  for (double speedup : speedups) {
    node.rt.spawn(TaskSpec("op").on(node.rt.cpu()).on(node.gpu).with_speedup(speedup),
                  [&, speedup](TaskContext& context) {
                    if (pulls) both.arrive(context.executor());
                    std::lock_guard guard(lock);
                    ran.push_back({context.executor(), speedup});
                  });
  }
  EXPECT_EQ(ran.size(), 0u);  // everything waits in the pool while both executors are held
  node.release();
  node.rt.wait_all();
  return ran;
}

std::vector<double> speedups_on(const std::vector<Ran>& ran, ExecutorId executor) {
  std::vector<double> out;
  for (const Ran& r : ran)
    if (r.executor == executor) out.push_back(r.speedup);
  return out;
}

TEST(Pats, TheGpuTakesTheLargestSpeedupsFirstAndTheCpuTheSmallest) {
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  const std::vector<double> speedups = {5, 1, 20, 3, 10, 2, 15, 1.5, 8, 12, 4, 6};
  const std::vector<Ran> ran = run_pooled(node, speedups, true);
  ASSERT_EQ(ran.size(), speedups.size());
  const std::vector<double> on_gpu = speedups_on(ran, node.gpu);
  const std::vector<double> on_cpu = speedups_on(ran, node.rt.cpu());
  ASSERT_FALSE(on_gpu.empty());
  ASSERT_FALSE(on_cpu.empty());
  EXPECT_EQ(on_gpu.front(), 20);  // the gpu's first pick: the largest speedup
  EXPECT_EQ(on_cpu.front(), 1);   // the cpu's first pick: the smallest
  EXPECT_TRUE(std::is_sorted(on_gpu.begin(), on_gpu.end(), std::greater<>())) << "gpu order";
  EXPECT_TRUE(std::is_sorted(on_cpu.begin(), on_cpu.end())) << "cpu order";
  // The gpu took a top slice of the speedups, the cpu a bottom one.
  EXPECT_GT(*std::min_element(on_gpu.begin(), on_gpu.end()),
            *std::max_element(on_cpu.begin(), on_cpu.end()));
}

TEST(Pats, FirstComeFirstServedDoesNotSortBySpeedup) {
  // The default (least-loaded push) places each task when it becomes ready, by queue length
  // alone (ties to the first candidate listed, the CPU pool), whatever its speedup.
  HeldNode node;
  const std::vector<double> speedups = {5, 1, 20, 3};
  const std::vector<Ran> ran = run_pooled(node, speedups, false);
  ASSERT_EQ(ran.size(), speedups.size());
  // Placed in turn on the less loaded executor: cpu, gpu, cpu, gpu.
  EXPECT_EQ(speedups_on(ran, node.rt.cpu()), (std::vector<double>{5, 20}));
  EXPECT_EQ(speedups_on(ran, node.gpu), (std::vector<double>{1, 3}));
}

TEST(Pats, SpeedupsComeFromTimeEstimatesToo) {
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  std::mutex lock;
  std::vector<std::string> gpu_order;
  BothTakePart both(node.rt.cpu(), node.gpu);
  node.hold();
  const auto submit = [&](const std::string& name, double cpu_seconds, double gpu_seconds) {
    node.rt.spawn(TaskSpec(name)
                      .on(node.rt.cpu())
                      .on(node.gpu)
                      .with_estimate(ExecutorKind::cpu, cpu_seconds)
                      .with_estimate(ExecutorKind::device_compute, gpu_seconds),
                  [&, name](TaskContext& context) {
                    both.arrive(context.executor());
                    std::lock_guard guard(lock);
                    if (context.executor() == node.gpu) gpu_order.push_back(name);
                  });
  };
  submit("x2", 2, 1);
  submit("x40", 40, 1);
  submit("x1", 1, 1);
  node.release();
  node.rt.wait_all();
  ASSERT_FALSE(gpu_order.empty());
  EXPECT_EQ(gpu_order.front(), "x40");
}

TEST(Pats, PriorityComesBeforeSpeedup) {
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  std::mutex lock;
  std::vector<double> gpu_order;
  BothTakePart both(node.rt.cpu(), node.gpu);
  node.hold();
  for (auto [speedup, priority] :
       {std::pair{20.0, Priority::normal}, std::pair{2.0, Priority::high},
        std::pair{1.0, Priority::high}}) {
    node.rt.spawn(
        TaskSpec("op").on(node.rt.cpu()).on(node.gpu).with_speedup(speedup).with_priority(priority),
        [&, speedup](TaskContext& context) {
          both.arrive(context.executor());
          std::lock_guard guard(lock);
          if (context.executor() == node.gpu) gpu_order.push_back(speedup);
        });
  }
  node.release();
  node.rt.wait_all();
  ASSERT_FALSE(gpu_order.empty());
  EXPECT_EQ(gpu_order.front(), 2.0);
}

// Records what choose() saw, and picks the last candidate.
class ChoiceRecorder final : public PlacementPolicy {
 public:
  std::size_t choose(const TaskView& task, std::span<const ExecutorView> candidates) override {
    name = task.name();
    priority = task.priority();
    task_candidates.assign(task.candidates().begin(), task.candidates().end());
    for (const DataAccess& access : task.accesses())
      access_bytes.push_back(access.data.bytes());
    bytes = task.bytes();
    speedup = task.speedup();
    cpu_estimate = task.estimate(ExecutorKind::cpu).value_or(-1);
    io_estimate = task.estimate(ExecutorKind::io).value_or(-1);
    views.assign(candidates.begin(), candidates.end());
    return candidates.size() - 1;
  }
  std::string name;
  Priority priority = Priority::normal;
  std::vector<ExecutorId> task_candidates;
  std::vector<std::uint64_t> access_bytes;
  std::uint64_t bytes = 0;
  double speedup = 0, cpu_estimate = 0, io_estimate = 0;
  std::vector<ExecutorView> views;
};

TEST(PlacementPolicies, SeeAReadOnlyViewOfTheTaskAndItsCandidates) {
  HeldNode node;
  auto owned = std::make_unique<ChoiceRecorder>();
  ChoiceRecorder& seen = *owned;
  node.rt.set_placement_policy(std::move(owned));
  DataHandle small = node.rt.create_data("small", 100);
  DataHandle large = node.rt.create_data("large", 5000);
  ExecutorId ran_on{99};
  node.rt
      .submit(TaskSpec("look")
                  .on(node.rt.cpu())
                  .on(node.gpu)
                  .reads(small)
                  .updates(large)
                  .with_priority(Priority::high)
                  .with_estimate(ExecutorKind::cpu, 3.0)
                  .with_speedup(6.0),
              [&](TaskContext& context) { ran_on = context.executor(); })
      .wait();
  EXPECT_EQ(ran_on, node.gpu);
  EXPECT_EQ(seen.name, "look");
  EXPECT_EQ(seen.priority, Priority::high);
  EXPECT_EQ(seen.task_candidates, (std::vector<ExecutorId>{node.rt.cpu(), node.gpu}));
  EXPECT_EQ(seen.access_bytes, (std::vector<std::uint64_t>{100, 5000}));
  EXPECT_EQ(seen.bytes, 5100u);
  EXPECT_EQ(seen.speedup, 6.0);
  EXPECT_EQ(seen.cpu_estimate, 3.0);
  EXPECT_EQ(seen.io_estimate, -1);
  ASSERT_EQ(seen.views.size(), 2u);
  EXPECT_EQ(seen.views[0].id, node.rt.cpu());
  EXPECT_EQ(seen.views[0].kind, ExecutorKind::cpu);
  EXPECT_EQ(seen.views[0].name, "cpu");
  EXPECT_EQ(seen.views[0].workers, 1u);
  EXPECT_TRUE(seen.views[0].device.empty());
  EXPECT_EQ(seen.views[1].kind, ExecutorKind::device_compute);
  EXPECT_EQ(seen.views[1].device, "gpu0");
  EXPECT_FALSE(seen.views[1].space.has_value());  // no staging hook
}

TEST(PlacementPolicies, ExecutorsDeclareTheirKind) {
  Runtime rt(testing::small_config(1, 1));
  EXPECT_EQ(rt.executor(rt.cpu()).kind(), ExecutorKind::cpu);
  EXPECT_EQ(rt.executor(rt.io()).kind(), ExecutorKind::io);
  EXPECT_EQ(rt.executor(rt.io()).id(), rt.io());
  auto gpu = device::make_cpu_device(cpu_pool_block_runner(rt));
  const DeviceExecutors device = add_device(rt, *gpu);
  // The CPU device's kernels run on CPU cores: PATS weighs its queue as a CPU.
  EXPECT_EQ(rt.executor(device.compute).kind(), ExecutorKind::cpu);
  EXPECT_EQ(rt.executor(device.upload).kind(), ExecutorKind::copy);
  EXPECT_EQ(rt.executor(device.download).kind(), ExecutorKind::copy);
  EXPECT_EQ(rt.executor(device.compute).device(), gpu->info().id);
  EXPECT_FALSE(rt.executor(device.compute).device().empty());
  EXPECT_STREQ(to_string(ExecutorKind::device_compute), "device compute");
}

TEST(PooledTasks, CancelledOnesFinishWithoutAWorker) {
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  node.hold();
  TaskHandle kept = node.rt.submit(TaskSpec("kept").on(node.rt.cpu()).on(node.gpu), [] {});
  TaskHandle dropped = node.rt.submit(TaskSpec("dropped").on(node.rt.cpu()).on(node.gpu), [] {});
  TaskHandle after = node.rt.submit(TaskSpec("after").after(dropped), [] {});
  dropped.cancel();
  EXPECT_THROW(dropped.wait(), TaskCancelled);  // both executors are still held
  EXPECT_THROW(after.wait(), TaskCancelled);
  EXPECT_FALSE(kept.done());
  node.release();
  kept.wait();
  node.rt.cancel_all();
  node.rt.wait_all();
}

TEST(PooledTasks, CancelAllEmptiesThePool) {
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  node.hold();
  std::vector<TaskHandle> pooled;
  for (int i = 0; i < 10; ++i)
    pooled.push_back(node.rt.submit(TaskSpec("pooled").on(node.rt.cpu()).on(node.gpu), [] {}));
  node.rt.cancel_all();
  for (const TaskHandle& task : pooled) {
    EXPECT_THROW(task.wait(), TaskCancelled);
  }
  node.release();
  node.rt.wait_all();
}

TEST(PooledTasks, AFailureReachesDependentsAndWaitAll) {
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  DataHandle datum = node.rt.create_data("datum");
  std::atomic<bool> dependent_ran{false};
  node.rt.submit(TaskSpec("breaks").on(node.rt.cpu()).on(node.gpu).writes(datum).with_speedup(4),
                 [] { throw std::runtime_error("broken"); });
  TaskHandle reader = node.rt.submit(TaskSpec("reader").on(node.rt.cpu()).on(node.gpu).reads(datum),
                                     [&] { dependent_ran = true; });
  try {
    node.rt.wait_all();
    FAIL() << "wait_all() did not report the failure";
  } catch (const TaskFailed& failure) {
    EXPECT_EQ(failure.task(), "breaks");
  }
  EXPECT_EQ(reader.status(), TaskStatus::failed);
  EXPECT_FALSE(dependent_ran.load());
}

TEST(PooledTasks, ATaskWaitingForPooledChildrenLetsAStandInRunThem) {
  // The gpu is held; the only CPU worker runs a parent that waits for pooled children: a
  // stand-in serves the worker and pulls them.
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  node.rt.spawn(TaskSpec("hold gpu").on(node.gpu), [&] { node.gate.pass(); });
  std::atomic<int> children_on_cpu{0};
  node.rt
      .submit(TaskSpec("parent"),
              [&](TaskContext& context) {
                std::vector<TaskHandle> children;
                for (int i = 0; i < 8; ++i) {
                  children.push_back(context.runtime().submit(
                      TaskSpec("child").on(node.rt.cpu()).on(node.gpu).with_speedup(1 + i),
                      [&](TaskContext& child) {
                        if (child.executor() == node.rt.cpu()) children_on_cpu.fetch_add(1);
                      }));
                }
                for (const TaskHandle& child : children)
                  child.wait();
              })
      .wait();
  EXPECT_EQ(children_on_cpu.load(), 8);
}

TEST(PooledTasks, ThrottledSubmissionStillDrainsThePool) {
  Config config = testing::small_config(2, 1);
  config.section<runtime::RuntimeSettings>().max_tasks_in_flight = 16;
  Runtime rt(config);
  auto device = std::make_unique<ThreadPoolExecutor>("gpu", 1, make_priority_fifo_policy());
  device->set_kind(ExecutorKind::device_compute, "gpu0");
  const ExecutorId gpu = rt.add_executor(std::move(device));
  rt.set_placement_policy(make_pats_policy());
  std::atomic<int> ran{0};
  for (int i = 0; i < 2000; ++i) {
    rt.spawn(TaskSpec("op").on(rt.cpu()).on(gpu).with_speedup(1 + i % 20),
             [&] { ran.fetch_add(1); });
  }
  rt.wait_all();
  EXPECT_EQ(ran.load(), 2000);
}

// An executor with one thread of its own that does not pull (as the network's).
class NonPullingExecutor final : public Executor {
 public:
  NonPullingExecutor() : Executor("non-pulling", 1, ExecutorKind::device_compute, "dev9") {}
  ~NonPullingExecutor() override { stop(); }
  void start(TaskRunner& runner) override {
    runner_ = &runner;
    thread_ = std::thread([this] {
      std::unique_lock guard(lock_);
      while (true) {
        changed_.wait(guard, [&] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        ReadyTask* task = tasks_.front();
        tasks_.erase(tasks_.begin());
        guard.unlock();
        runner_->run(task, *this, 0);
        guard.lock();
      }
    });
  }
  void enqueue(ReadyTask* task) override {
    std::lock_guard guard(lock_);
    tasks_.push_back(task);
    changed_.notify_one();
  }
  std::size_t queued() const override {
    std::lock_guard guard(lock_);
    return tasks_.size();
  }
  bool run_one(unsigned) override { return false; }
  void stop() override {
    {
      std::lock_guard guard(lock_);
      stopping_ = true;
      changed_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  TaskRunner* runner_ = nullptr;
  mutable std::mutex lock_;
  std::condition_variable changed_;
  std::vector<ReadyTask*> tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

TEST(PooledTasks, CandidatesThatDoNotPullAreGivenTasksByChoose) {
  Runtime rt(testing::small_config(1, 1));
  const ExecutorId own = rt.add_executor(std::make_unique<NonPullingExecutor>());
  const ExecutorId other = rt.add_executor(std::make_unique<NonPullingExecutor>());
  rt.set_placement_policy(make_pats_policy());
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; ++i) {
    // Neither candidate pulls: PATS's choose() places the task (a device, for a speedup > 1).
    rt.spawn(TaskSpec("pushed").on(own).on(other).with_speedup(5), [&](TaskContext& context) {
      if (context.executor() == own || context.executor() == other) ran.fetch_add(1);
    });
  }
  // A pulling and a non-pulling candidate: pooled; only the CPU pool takes it.
  ExecutorId mixed{99};
  rt.submit(TaskSpec("mixed").on(own).on(rt.cpu()), [&](TaskContext& context) {
      mixed = context.executor();
    }).wait();
  rt.wait_all();
  EXPECT_EQ(ran.load(), 20);
  EXPECT_EQ(mixed, rt.cpu());
}

TEST(PooledTasks, AnIdleExecutorNoticesPooledWorkAfterSleeping) {
  // Workers go to sleep (no work for a while), then a pooled task must wake one of them.
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int round = 0; round < 3; ++round) {
    node.rt.submit(TaskSpec("late").on(node.rt.cpu()).on(node.gpu), [] {}).wait();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace
}  // namespace strata::runtime

namespace strata::runtime {
namespace {

// A kernel's task returns before its kernel ends: the device is busy until it completes, so it
// takes no other pooled task before then, and the CPU, once free, takes the rest.
TEST(PooledTasks, AnExecutorTakesItsNextPooledTaskOnlyOnceItsDeferredOneCompleted) {
  HeldNode node;
  node.rt.set_placement_policy(make_pats_policy());
  std::mutex lock;
  std::vector<DeferredCompletion> pending;
  std::vector<ExecutorId> ran;
  node.hold();
  node.release();  // both free; the gpu pulls first below, the cpu is held again
  Gate cpu_gate;
  // Opened on every way out, a failed assertion's too: the held CPU task must not outlive it.
  struct OpenOnExit {
    Gate& gate;
    ~OpenOnExit() { gate.open(); }
  } open_on_exit{cpu_gate};
  std::atomic<bool> cpu_held{false};
  node.rt.submit(TaskSpec("hold cpu again"), [&] {
    cpu_held = true;
    cpu_gate.pass();
  });
  ASSERT_TRUE(eventually([&] { return cpu_held.load(); }));
  for (int t = 0; t < 3; ++t) {
    node.rt.spawn(TaskSpec("kernel").on(node.rt.cpu()).on(node.gpu).with_speedup(10),
                  [&](TaskContext& context) {
                    std::lock_guard guard(lock);
                    ran.push_back(context.executor());
                    pending.push_back(context.defer_completion());
                  });
  }
  ASSERT_TRUE(eventually([&] {
    std::lock_guard guard(lock);
    return ran.size() == 1;
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  {
    std::lock_guard guard(lock);
    EXPECT_EQ(ran.size(), 1u) << "the gpu took a second task while its first was running";
    EXPECT_EQ(ran.front(), node.gpu);
    pending.front().complete();
  }
  ASSERT_TRUE(eventually([&] {
    std::lock_guard guard(lock);
    return ran.size() == 2;
  }));
  {
    std::lock_guard guard(lock);
    EXPECT_EQ(ran.back(), node.gpu);
  }
  cpu_gate.open();  // the cpu is free: it takes the third while the gpu's second runs
  ASSERT_TRUE(eventually([&] {
    std::lock_guard guard(lock);
    return ran.size() == 3;
  }));
  {
    std::lock_guard guard(lock);
    EXPECT_EQ(ran.back(), node.rt.cpu());
    for (std::size_t t = 1; t < pending.size(); ++t)
      pending[t].complete();
  }
  node.rt.wait_all();
}

}  // namespace
}  // namespace strata::runtime
