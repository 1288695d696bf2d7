// Failure and cancellation: a throwing task fails its dependents and the run, the user gets the
// original error with the task's name, nothing hangs, and the runtime is usable afterwards.

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::Gate;
using testing::small_config;

std::string message_of(const TaskHandle& task) {
  try {
    task.wait();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Failure, WaitRethrowsWithTaskNameAndOriginalError) {
  Runtime rt(small_config());
  TaskHandle bad =
      rt.submit(TaskSpec("parse tile 7"), [] { throw std::runtime_error("bad header"); });
  try {
    bad.wait();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.task(), "parse tile 7");
    EXPECT_NE(std::string(e.what()).find("parse tile 7"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("bad header"), std::string::npos);
    EXPECT_THROW(e.rethrow_original(), std::runtime_error);
  }
  EXPECT_EQ(bad.status(), TaskStatus::failed);
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

TEST(Failure, DependentsFailNamingTheCause) {
  Runtime rt(small_config());
  DataHandle data = rt.create_data("tile");
  TaskHandle load =
      rt.submit(TaskSpec("load").writes(data), [] { throw std::runtime_error("EIO"); });
  bool ran = false;
  TaskHandle use = rt.submit(TaskSpec("use").reads(data), [&] { ran = true; });
  TaskHandle after = rt.submit(TaskSpec("after").after(use), [&] { ran = true; });
  const std::string message = message_of(after);
  EXPECT_FALSE(ran);
  EXPECT_EQ(use.status(), TaskStatus::failed);
  EXPECT_EQ(after.status(), TaskStatus::failed);
  EXPECT_NE(message.find("'after' did not run"), std::string::npos) << message;
  EXPECT_NE(message.find("'load'"), std::string::npos) << message;
  EXPECT_NE(message.find("EIO"), std::string::npos) << message;
  try {
    rt.wait_all();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.task(), "load");
  }
}

TEST(Failure, ReaderSubmittedAfterTheWriterFailedStillFails) {
  Runtime rt(small_config());
  DataHandle data = rt.create_data("tile");
  TaskHandle load =
      rt.submit(TaskSpec("load").writes(data), [] { throw std::runtime_error("EIO"); });
  EXPECT_THROW(load.wait(), TaskFailed);  // the writer has finished, failed, before the reader
  bool ran = false;
  TaskHandle use = rt.submit(TaskSpec("use").reads(data), [&] { ran = true; });
  const std::string message = message_of(use);
  EXPECT_FALSE(ran);
  EXPECT_EQ(use.status(), TaskStatus::failed);
  EXPECT_NE(message.find("'load'"), std::string::npos) << message;
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

TEST(Failure, ATaskThatNeverRanReleasesWhatItsBodyHeld) {
  Runtime rt(small_config());
  auto held = std::make_shared<int>(7);
  TaskHandle bad = rt.submit(TaskSpec("bad"), [] { throw std::runtime_error("boom"); });
  TaskHandle dependent = rt.submit(TaskSpec("dependent").after(bad), [held] { (void)*held; });
  EXPECT_THROW(rt.wait_all(), TaskFailed);
  EXPECT_EQ(dependent.status(), TaskStatus::failed);
  // The body of a task that failed without running is gone with it (no cycle through handles
  // it captured survives the run).
  EXPECT_EQ(held.use_count(), 1);
}

TEST(Failure, RuntimeIsUsableAfterACollectedFailure) {
  Runtime rt(small_config());
  rt.submit([] { throw std::logic_error("first run"); });
  EXPECT_THROW(rt.wait_all(), TaskFailed);
  int ran = 0;
  rt.submit([&] { ran = 1; });
  rt.wait_all();
  EXPECT_EQ(ran, 1);
}

// After wait_all() reported a failure, a plain write of the data starts it afresh: readers after
// the write see the new value.
void write_after_a_collected_failure(Access failing_access, bool failed_reader_too) {
  Runtime rt(small_config());
  const DataHandle data = rt.create_data("tile", 8);
  int value = 0;
  rt.spawn(TaskSpec("load").access(data, failing_access), [] { throw std::runtime_error("EIO"); });
  if (failed_reader_too) rt.spawn(TaskSpec("inspect").reads(data), [] {});
  EXPECT_THROW(rt.wait_all(), TaskFailed);

  const TaskHandle write = rt.submit(TaskSpec("reload").writes(data), [&] { value = 5; });
  int seen = 0;
  const TaskHandle read = rt.submit(TaskSpec("use").reads(data), [&] { seen = value; });
  const TaskHandle update = rt.submit(TaskSpec("scale").updates(data), [&] { value *= 3; });
  rt.wait_all();  // nothing failed since the last collection
  EXPECT_EQ(write.status(), TaskStatus::succeeded);
  EXPECT_EQ(read.status(), TaskStatus::succeeded);
  EXPECT_EQ(update.status(), TaskStatus::succeeded);
  EXPECT_EQ(seen, 5);
  EXPECT_EQ(value, 15);
}

TEST(Failure, AWriteAfterACollectedFailureStartsTheDatumAfresh) {
  for (Access failing : {Access::write, Access::read_write, Access::reduce, Access::read}) {
    SCOPED_TRACE(to_string(failing));
    write_after_a_collected_failure(failing, false);
    write_after_a_collected_failure(failing, true);
  }
}

TEST(Failure, ReadsAfterACollectedFailureFailAndTheNextWaitAllReportsThem) {
  Runtime rt(small_config());
  const DataHandle data = rt.create_data("tile", 8);
  rt.spawn(TaskSpec("load").writes(data), [] { throw std::runtime_error("EIO"); });
  EXPECT_THROW(rt.wait_all(), TaskFailed);

  bool ran = false;
  const TaskHandle use = rt.submit(TaskSpec("use").reads(data), [&] { ran = true; });
  const TaskHandle scale = rt.submit(TaskSpec("scale").updates(data), [&] { ran = true; });
  try {
    rt.wait_all();
    FAIL() << "expected TaskFailed for the reads of the failed data";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.task(), "load");
    EXPECT_NE(std::string(e.what()).find("'use' did not run"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("EIO"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(ran);
  EXPECT_EQ(use.status(), TaskStatus::failed);
  EXPECT_EQ(scale.status(), TaskStatus::failed);
  // A task after a collected failure through after() fails and is reported the same way.
  const TaskHandle later = rt.submit(TaskSpec("later").after(use), [&] { ran = true; });
  EXPECT_THROW(rt.wait_all(), TaskFailed);
  EXPECT_EQ(later.status(), TaskStatus::failed);
  rt.wait_all();  // all reported
  EXPECT_FALSE(ran);
}

TEST(Failure, AWriteBeforeTheFailureIsCollectedStillFails) {
  Runtime rt(small_config());
  const DataHandle data = rt.create_data("tile", 8);
  const TaskHandle load =
      rt.submit(TaskSpec("load").writes(data), [] { throw std::runtime_error("EIO"); });
  EXPECT_THROW(load.wait(), TaskFailed);
  const TaskHandle write = rt.submit(TaskSpec("reload").writes(data), [] {});
  EXPECT_THROW(write.wait(), TaskFailed);
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

TEST(Failure, UnstartedTasksOfAFailedRunAreCancelled) {
  Runtime rt(small_config());
  Gate gate;
  TaskHandle blocker = rt.submit(TaskSpec("blocker").on(rt.io()), [&] { gate.pass(); });
  ASSERT_TRUE(testing::eventually([&] { return blocker.status() == TaskStatus::running; }));
  bool ran = false;
  TaskHandle waiting = rt.submit(TaskSpec("waiting").after(blocker), [&] { ran = true; });
  TaskHandle failing = rt.submit(TaskSpec("failing"), [] { throw std::runtime_error("boom"); });
  EXPECT_THROW(failing.wait(), TaskFailed);
  gate.open();
  EXPECT_THROW(rt.wait_all(), TaskFailed);
  EXPECT_EQ(blocker.status(), TaskStatus::succeeded);
  EXPECT_EQ(waiting.status(), TaskStatus::cancelled);
  EXPECT_FALSE(ran);
  const std::string message = message_of(waiting);
  EXPECT_NE(message.find("'failing' failed: boom"), std::string::npos) << message;
}

TEST(Failure, NonStandardExceptionsAreReported) {
  Runtime rt(small_config());
  rt.submit(TaskSpec("odd"), [] { throw 42; });
  try {
    rt.wait_all();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_NE(std::string(e.what()).find("'odd'"), std::string::npos);
    EXPECT_THROW(e.rethrow_original(), int);
  }
}

TEST(Failure, FailureEarlyInALongChainEndsPromptlyWithoutRunningTheRest) {
  Runtime rt(small_config());
  std::atomic<int> ran{0};
  TaskHandle previous;
  for (int i = 0; i < 10'000; ++i) {
    previous = rt.submit(TaskSpec("link " + std::to_string(i)).after(previous), [&ran, i] {
      if (i == 5) throw std::runtime_error("link broke");
      ran.fetch_add(1);
    });
  }
  try {
    rt.wait_all();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.task(), "link 5");
  }
  EXPECT_EQ(ran.load(), 5);
  EXPECT_EQ(previous.status(), TaskStatus::failed);
}

TEST(Cancellation, CancelledTaskAndItsDependentsDoNotRun) {
  Runtime rt(small_config());
  Gate gate;
  TaskHandle blocker = rt.submit([&] { gate.pass(); });
  bool ran = false;
  TaskHandle cancelled = rt.submit(TaskSpec("cancelled").after(blocker), [&] { ran = true; });
  TaskHandle dependent = rt.submit(TaskSpec("dependent").after(cancelled), [&] { ran = true; });
  cancelled.cancel();
  gate.open();
  rt.wait_all();  // a cancellation is not a failure
  EXPECT_FALSE(ran);
  EXPECT_EQ(cancelled.status(), TaskStatus::cancelled);
  EXPECT_EQ(dependent.status(), TaskStatus::cancelled);
  EXPECT_THROW(cancelled.wait(), TaskCancelled);
  EXPECT_NE(message_of(dependent).find("'cancelled' it depends on was cancelled"),
            std::string::npos);
  EXPECT_EQ(rt.summary().tasks_cancelled, 2u);
}

TEST(Cancellation, CancelAllSkipsPendingTasksButNotLaterOnes) {
  Runtime rt(small_config(1));
  Gate gate;
  rt.submit([&] { gate.pass(); });
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i)
    rt.submit([&] { ran.fetch_add(1); });
  rt.cancel_all();
  gate.open();
  rt.wait_all();
  EXPECT_EQ(ran.load(), 0);
  rt.submit([&] { ran.fetch_add(1); }).wait();
  EXPECT_EQ(ran.load(), 1);
}

}  // namespace
}  // namespace strata::runtime
