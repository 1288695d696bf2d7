// Deferred completion: a task whose body hands completion to asynchronous work.

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

TEST(DeferredCompletion, SuccessorsWaitForTheAsynchronousCompletion) {
  Runtime rt(testing::small_config());
  std::atomic<bool> copied{false};
  std::thread copy_engine;
  TaskHandle copy = rt.submit(TaskSpec("async copy"), [&](TaskContext& context) {
    copy_engine = std::thread([&copied, done = context.defer_completion()]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      copied = true;
      done.complete();
    });
  });
  bool saw_copy = false;
  rt.submit(TaskSpec("use").after(copy), [&] { saw_copy = copied.load(); }).wait();
  copy_engine.join();
  EXPECT_TRUE(saw_copy);
  EXPECT_EQ(copy.status(), TaskStatus::succeeded);
}

TEST(DeferredCompletion, FailReportsTheError) {
  Runtime rt(testing::small_config());
  std::promise<DeferredCompletion> handed_over;
  TaskHandle task = rt.submit(TaskSpec("recv"), [&](TaskContext& context) {
    handed_over.set_value(context.defer_completion());
  });
  DeferredCompletion later = handed_over.get_future().get();
  later.fail(std::make_exception_ptr(std::runtime_error("peer vanished")));
  EXPECT_THROW(task.wait(), TaskFailed);
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

TEST(DeferredCompletion, DroppedCompletionFailsTheTaskInsteadOfHanging) {
  Runtime rt(testing::small_config());
  TaskHandle task = rt.submit(TaskSpec("forgetful"), [](TaskContext& context) {
    DeferredCompletion dropped = context.defer_completion();
  });
  try {
    task.wait();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_NE(std::string(e.what()).find("dropped without complete()"), std::string::npos);
  }
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

}  // namespace
}  // namespace strata::runtime
