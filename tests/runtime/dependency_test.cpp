// Explicit dependencies, completion callbacks, when_all, priorities.

#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::Gate;
using testing::small_config;

TEST(Dependencies, IndependentTasksAllRun) {
  Runtime rt(small_config());
  std::atomic<int> ran{0};
  for (int i = 0; i < 10'000; ++i)
    rt.submit([&] { ran.fetch_add(1); });
  rt.wait_all();
  EXPECT_EQ(ran.load(), 10'000);
  EXPECT_EQ(rt.summary().tasks_succeeded, 10'000u);
}

TEST(Dependencies, ChainRunsInOrder) {
  Runtime rt(small_config());
  std::vector<int> order;
  TaskHandle previous;
  for (int i = 0; i < 1000; ++i) {
    previous = rt.submit(TaskSpec("link").after(previous), [&order, i] { order.push_back(i); });
  }
  previous.wait();
  ASSERT_EQ(order.size(), 1000u);
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(order[i], i);
}

TEST(Dependencies, DependencyOnFinishedTaskIsSatisfied) {
  Runtime rt(small_config());
  TaskHandle first = rt.submit([] {});
  first.wait();
  bool ran = false;
  rt.submit(TaskSpec().after(first), [&] { ran = true; }).wait();
  EXPECT_TRUE(ran);
}

TEST(Dependencies, WhenAllFinishesAfterEveryInput) {
  Runtime rt(small_config());
  std::atomic<int> done{0};
  std::vector<TaskHandle> inputs;
  for (int i = 0; i < 50; ++i)
    inputs.push_back(rt.submit([&] { done.fetch_add(1); }));
  int seen = -1;
  rt.submit(TaskSpec().after(rt.when_all(inputs)), [&] { seen = done.load(); }).wait();
  EXPECT_EQ(seen, 50);
}

TEST(Dependencies, CompletionCallbacksRunOnceEvenWhenAttachedLate) {
  Runtime rt(small_config());
  Gate gate;
  std::atomic<int> calls{0};
  TaskHandle task = rt.submit([&] { gate.pass(); });
  task.on_complete([&](const TaskHandle& done) {
    EXPECT_EQ(done.status(), TaskStatus::succeeded);
    calls.fetch_add(1);
  });
  gate.open();
  task.wait();
  task.on_complete([&](const TaskHandle&) { calls.fetch_add(1); });  // already done: runs now
  rt.wait_all();
  EXPECT_EQ(calls.load(), 2);
}

TEST(Dependencies, HigherPriorityReadyTasksRunFirst) {
  Runtime rt(small_config(1));
  Gate gate;
  rt.submit([&] { gate.pass(); });  // occupies the only CPU worker
  std::mutex lock;
  std::vector<Priority> order;
  for (int i = 0; i < 30; ++i) {
    const Priority level = static_cast<Priority>(i % 3);
    rt.submit(TaskSpec().with_priority(level), [&, level] {
      std::lock_guard guard(lock);
      order.push_back(level);
    });
  }
  gate.open();
  rt.wait_all();
  ASSERT_EQ(order.size(), 30u);
  for (std::size_t i = 1; i < order.size(); ++i)
    EXPECT_GE(order[i - 1], order[i]) << "at " << i;
}

TEST(Dependencies, APlainTaskIsLikeOneWithADefaultSpec) {
  Runtime rt(small_config());
  bool ran = false;
  TaskHandle plain = rt.submit([&] { ran = true; });
  plain.wait();
  EXPECT_TRUE(ran);
  EXPECT_EQ(plain.name(), TaskSpec().name);
  EXPECT_EQ(plain.status(), TaskStatus::succeeded);
  EXPECT_THROW(rt.submit(TaskFunction()), Error);
  rt.wait_all();
  EXPECT_EQ(rt.summary().tasks_succeeded, 1u);
}

TEST(Dependencies, SubmittingWithoutBodyOrWithUnknownExecutorIsRefused) {
  Runtime rt(small_config());
  EXPECT_THROW(rt.submit(TaskSpec("empty"), TaskFunction()), Error);
  try {
    rt.submit(TaskSpec("lost").on(ExecutorId{42}), [] {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'lost'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("42"), std::string::npos) << e.what();
  }
  rt.wait_all();
}

}  // namespace
}  // namespace strata::runtime
