// Waiting inside a task keeps the worker busy with other work instead of deadlocking it.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace strata::runtime
