// Task observers: every submitted task is reported once when it finishes, with its status, and
// every body that ran once with where and when; observers come and go while tasks run.

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::small_config;

class Recorder final : public TaskObserver {
 public:
  void on_run(const TaskRun& run) override {
    std::lock_guard guard(lock_);
    ++runs[std::string(run.name)];
    ordered &= run.start_ns <= run.end_ns;
    executors[std::string(run.name)] = run.executor;
  }
  void on_finish(std::string_view name, std::uint64_t /*task_id*/, TaskStatus status) override {
    std::lock_guard guard(lock_);
    ++finishes[std::string(name) + " " + to_string(status)];
  }

  std::map<std::string, int> runs;
  std::map<std::string, int> finishes;
  bool ordered = true;
  std::map<std::string, ExecutorId> executors;

 private:
  std::mutex lock_;
};

TEST(Observer, SeesEveryTaskFinishOnceWithItsStatusAndEveryBodyThatRan) {
  Runtime rt(small_config(2, 1));
  auto recorder = std::make_shared<Recorder>();
  rt.add_observer(recorder);
  for (int i = 0; i < 100; ++i)
    rt.spawn(TaskSpec("work"), [] {});
  // Finished before the failure below: a failure cancels the tasks that have not started yet.
  rt.wait_all();
  rt.submit(TaskSpec("load").on(rt.io()), [] {}).wait();
  const TaskHandle bad = rt.submit(TaskSpec("bad"), [] { throw std::runtime_error("no"); });
  rt.spawn(TaskSpec("dependent").after(bad), [] {});
  EXPECT_THROW(rt.wait_all(), TaskFailed);
  rt.spawn(TaskSpec("gated").after(bad), [] {});
  EXPECT_THROW(rt.wait_all(), TaskFailed);  // a dependent of a collected failure

  EXPECT_EQ(recorder->runs["work"], 100);
  EXPECT_EQ(recorder->runs["load"], 1);
  EXPECT_EQ(recorder->executors["load"], rt.io());
  EXPECT_EQ(recorder->executors["work"], rt.cpu());
  EXPECT_EQ(recorder->runs["bad"], 1);
  EXPECT_EQ(recorder->runs.count("dependent"), 0u);  // never ran
  EXPECT_EQ(recorder->finishes["work succeeded"], 100);
  EXPECT_EQ(recorder->finishes["load succeeded"], 1);
  EXPECT_EQ(recorder->finishes["bad failed"], 1);
  EXPECT_EQ(recorder->finishes["dependent failed"], 1);
  EXPECT_EQ(recorder->finishes["gated failed"], 1);
  EXPECT_TRUE(recorder->ordered);
}

TEST(Observer, AProgressCounterAddedAndRemovedWhileTasksRun) {
  // A progress bar's view: completions counted while a stream of tasks runs.
  struct Progress final : TaskObserver {
    std::atomic<int> done{0};
    void on_finish(std::string_view, std::uint64_t, TaskStatus) override { done.fetch_add(1); }
  };
  Runtime rt(small_config(2));
  auto first = std::make_shared<Progress>();
  auto second = std::make_shared<Progress>();
  rt.add_observer(first);
  for (int i = 0; i < 1000; ++i)
    rt.spawn([] {});
  rt.wait_all();
  rt.add_observer(second);
  rt.remove_observer(first.get());
  for (int i = 0; i < 500; ++i)
    rt.spawn([] {});
  rt.wait_all();
  EXPECT_EQ(first->done.load(), 1000);
  EXPECT_EQ(second->done.load(), 500);
  EXPECT_THROW(rt.add_observer(nullptr), Error);
}

TEST(Observer, TracingIsAnObserverBesideOthers) {
  Runtime rt(small_config(1));
  auto recorder = std::make_shared<Recorder>();
  rt.add_observer(recorder);
  rt.enable_tracing();
  rt.enable_tracing();  // once is enough
  rt.submit(TaskSpec("traced"), [] {}).wait();
  const std::string path = ::testing::TempDir() + "observer_trace.json";
  rt.write_trace(path);
  std::ifstream in(path);
  std::string text;
  for (std::string line; std::getline(in, line);)
    text += line;
  EXPECT_EQ(recorder->runs["traced"], 1);
  std::size_t spans = 0;
  for (std::size_t at = text.find("\"traced\""); at != std::string::npos;
       at = text.find("\"traced\"", at + 1))
    ++spans;
  EXPECT_EQ(spans, 1u) << text;
}

}  // namespace
}  // namespace strata::runtime
