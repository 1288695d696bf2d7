// Task observers: every submitted task is reported once when it finishes, with its status, and
// every body that ran once with where and when, and a finish before any task waiting for it
// starts; observers come and go while tasks run.

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

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

// Random graphs of explicit and data dependencies: when a task starts, the observer has heard of
// the finish of every task it waited for (a test that waits for its tasks sees their finishes).
TEST(Observer, HearsOfEachFinishBeforeATaskWaitingForItStarts) {
  struct Finishes final : TaskObserver {
    explicit Finishes(int tasks) : heard(static_cast<std::size_t>(tasks)) {}
    void on_finish(std::string_view name, std::uint64_t, TaskStatus) override {
      heard[std::stoul(std::string(name))].store(true, std::memory_order_release);
    }
    std::vector<std::atomic<bool>> heard;
  };
  constexpr int tasks = 3000, data_items = 8;
  std::mt19937 random(7);
  Runtime rt(small_config(4, 2));
  auto finishes = std::make_shared<Finishes>(tasks);
  rt.add_observer(finishes);
  std::vector<DataHandle> data;
  for (int d = 0; d < data_items; ++d)
    data.push_back(rt.create_data("d" + std::to_string(d)));
  // Per datum: its last writer and the readers since (the tasks a writer waits for).
  std::vector<int> last_writer(data_items, -1);
  std::vector<std::vector<int>> readers(data_items);
  std::vector<TaskHandle> submitted;
  std::atomic<int> unheard{0};
  for (int t = 0; t < tasks; ++t) {
    TaskSpec spec(std::to_string(t));
    if (random() % 4 == 0) spec.on(rt.io());
    std::vector<int> waits;
    if (t > 0 && random() % 3 == 0) {
      const int before = static_cast<int>(random() % static_cast<unsigned>(t));
      spec.after(submitted[static_cast<std::size_t>(before)]);
      waits.push_back(before);
    }
    const int d = static_cast<int>(random() % data_items);
    if (random() % 2 == 0) {
      spec.reads(data[static_cast<std::size_t>(d)]);
      if (last_writer[d] >= 0) waits.push_back(last_writer[d]);
      readers[d].push_back(t);
    } else {
      spec.writes(data[static_cast<std::size_t>(d)]);
      if (last_writer[d] >= 0) waits.push_back(last_writer[d]);
      waits.insert(waits.end(), readers[d].begin(), readers[d].end());
      readers[d].clear();
      last_writer[d] = t;
    }
    submitted.push_back(rt.submit(std::move(spec), [&, waits] {
      for (const int before : waits)
        if (!finishes->heard[static_cast<std::size_t>(before)].load(std::memory_order_acquire))
          unheard.fetch_add(1);
    }));
  }
  rt.wait_all();
  EXPECT_EQ(unheard.load(), 0);
  for (int t = 0; t < tasks; ++t)
    EXPECT_TRUE(finishes->heard[static_cast<std::size_t>(t)].load()) << t;
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
