// Waiting inside a task never deadlocks a graph without cycles: a stand-in serves the waiting
// task's worker, and the waiting task lends its staging budget.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::small_config;

long fibonacci(Runtime& rt, int n) {
  if (n < 2) return n;
  long left = 0;
  TaskHandle child = rt.submit([&rt, &left, n] { left = fibonacci(rt, n - 1); });
  const long right = fibonacci(rt, n - 2);
  child.wait();
  return left + right;
}

TEST(WaitInsideTask, SingleWorkerWaitingOnItsChildDoesNotDeadlock) {
  Runtime rt(small_config(1));
  int child_ran = 0;
  rt.submit([&](TaskContext& context) {
      TaskHandle child = context.runtime().submit([&] { child_ran = 1; });
      child.wait();
    }).wait();
  EXPECT_EQ(child_ran, 1);
}

TEST(WaitInsideTask, RecursiveForkJoinOnTwoWorkers) {
  Runtime rt(small_config(2));
  long result = 0;
  rt.submit([&] { result = fibonacci(rt, 18); }).wait();
  EXPECT_EQ(result, 2584);
}

TEST(WaitInsideTask, WaitingOnAnIoTaskFromTheCpuPool) {
  Runtime rt(small_config(1, 1));
  int loaded = 0;
  rt.submit([&](TaskContext& context) {
      context.runtime()
          .submit(TaskSpec("load").on(context.runtime().io()), [&] { loaded = 7; })
          .wait();
    }).wait();
  EXPECT_EQ(loaded, 7);
}

TEST(WaitInsideTask, WaitAllInsideATaskIsAClearError) {
  Runtime rt(small_config(1));
  TaskHandle task = rt.submit([&] { rt.wait_all(); });
  try {
    task.wait();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_NE(std::string(e.what()).find("wait_all() was called from inside a task"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

// Parents that each update a datum of their own, submit a child that writes a datum of its own
// and wait for it: the parents alone fill the staging budget (64 tasks by default).
void parents_waiting_for_children(unsigned cpu_threads, int parents) {
  Runtime rt(small_config(cpu_threads));
  std::vector<int> done(parents, 0);
  for (int p = 0; p < parents; ++p) {
    const DataHandle own = rt.create_data("parent " + std::to_string(p), 1);
    rt.spawn(TaskSpec("parent").updates(own), [&rt, &done, p] {
      const DataHandle mine = rt.create_data("child " + std::to_string(p), 1);
      rt.submit(TaskSpec("child").writes(mine), [&done, p] { done[p] = 1; }).wait();
      done[p] += 1;
    });
  }
  rt.wait_all();
  for (int p = 0; p < parents; ++p)
    ASSERT_EQ(done[p], 2) << "parent " << p;
}

TEST(WaitInsideTask, WaitingParentsDoNotHoldBackTheirChildrensStagingSlots) {
  const int budget = static_cast<int>(runtime::RuntimeSettings{}.staging_max_tasks);
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    parents_waiting_for_children(threads, budget);
    parents_waiting_for_children(threads, 4 * budget + 1);
  }
}

// Task A updates x and waits for a slow I/O task; meanwhile C waits for D, which reads x: D
// needs A to finish, so A must not be stuck under C on one thread's stack. Once per worker.
void waiter_under_a_waiter(unsigned cpu_threads) {
  Runtime rt(small_config(cpu_threads, 1));
  std::vector<int> seen(cpu_threads, -1);
  for (unsigned i = 0; i < cpu_threads; ++i) {
    const DataHandle x = rt.create_data("x" + std::to_string(i), 1);
    int* value = new int(0);  // freed by D
    rt.spawn(TaskSpec("A").updates(x), [&rt, value] {
      rt.submit(TaskSpec("slow io").on(rt.io()), [] {
          std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }).wait();
      *value = 42;
    });
    rt.spawn(TaskSpec("C"), [&rt, &seen, x, value, i] {
      rt.submit(TaskSpec("D").reads(x), [&seen, value, i] {
          seen[i] = *value;
          delete value;
        }).wait();
    });
  }
  rt.wait_all();
  for (unsigned i = 0; i < cpu_threads; ++i)
    EXPECT_EQ(seen[i], 42) << "D " << i;
}

TEST(WaitInsideTask, AWaitingTaskIsNotStuckUnderAnotherWaiter) {
  for (unsigned threads : {1u, 2u, 4u}) {
    SCOPED_TRACE(threads);
    waiter_under_a_waiter(threads);
  }
}

TEST(WaitInsideTask, BlockedTasksDoNotCountAgainstTheWorkers) {
  // Eight tasks on one worker each wait until all eight run: only possible if each blocked one
  // hands its worker on.
  Runtime rt(small_config(1));
  constexpr int waiting = 8;
  std::atomic<int> arrived{0};
  for (int i = 0; i < waiting; ++i) {
    rt.spawn(TaskSpec("waits for all"), [&rt, &arrived] {
      arrived.fetch_add(1);
      // A wait on an I/O task that polls the count: the CPU worker is blocked meanwhile.
      rt.submit(TaskSpec("poll").on(rt.io()), [&arrived] {
          while (arrived.load() < waiting)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }).wait();
    });
  }
  rt.wait_all();
  EXPECT_EQ(arrived.load(), waiting);
}

TEST(WaitInsideTask, SubmittingPastTheTaskLimitFromATaskWhoseChildrenNeedItDoesNotHang) {
  // The children read what the parent updates, so none can run before the parent ends: the
  // parent's submissions wait for room only while tasks still finish.
  Config config = small_config(1);
  config.section<runtime::RuntimeSettings>().max_tasks_in_flight = 16;
  Runtime rt(config);
  const DataHandle shared = rt.create_data("shared");
  std::atomic<int> ran{0};
  rt.submit(TaskSpec("parent").updates(shared), [&] {
      for (int i = 0; i < 200; ++i)
        rt.spawn(TaskSpec("child").reads(shared), [&ran] { ran.fetch_add(1); });
    }).wait();
  rt.wait_all();
  EXPECT_EQ(ran.load(), 200);
}

}  // namespace
}  // namespace strata::runtime
