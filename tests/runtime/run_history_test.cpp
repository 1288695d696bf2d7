// The run history (measured run times per operation, size bucket and executor kind): buckets,
// learned hints, a file kept across runs, errors naming the file; and the placement policies
// the configuration names, FCFS among them.

#include "strata/runtime/run_history.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/thread_pool_executor.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

std::string temporary_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          (name + "." + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "." +
           std::to_string(std::hash<std::string>{}(
               ::testing::UnitTest::GetInstance()->current_test_info()->name()))))
      .string();
}

TEST(RunHistory, SizesFallInPowerOfTwoBuckets) {
  EXPECT_EQ(RunHistory::bucket_of(0), 0u);
  EXPECT_EQ(RunHistory::bucket_of(1), 1u);
  EXPECT_EQ(RunHistory::bucket_of(1023), 10u);
  EXPECT_EQ(RunHistory::bucket_of(1024), 11u);
  EXPECT_EQ(RunHistory::bucket_of(~0ull), 64u);
}

TEST(RunHistory, LearnedHintsGiveTheRatioOfTheMeanRunTimes) {
  RunHistory history;
  EXPECT_EQ(history.hints("axpy", 4096), nullptr);
  history.record("axpy", 4096, ExecutorKind::cpu, 0.010);
  history.record("axpy", 5000, ExecutorKind::cpu, 0.030);  // the same bucket
  auto hints = history.hints("axpy", 4100);
  ASSERT_NE(hints, nullptr);
  EXPECT_DOUBLE_EQ(*hints->estimate(ExecutorKind::cpu), 0.020);
  EXPECT_EQ(hints->effective_speedup(), 1.0);  // no device run yet
  history.record("axpy", 6000, ExecutorKind::device_compute, 0.004);
  hints = history.hints("axpy", 4096);
  EXPECT_DOUBLE_EQ(hints->effective_speedup(), 5.0);
  EXPECT_EQ(history.hints("axpy", 100), nullptr);  // another bucket
  EXPECT_EQ(history.hints("other", 4096), nullptr);
  history.record("axpy", 4096, ExecutorKind::cpu, -1);  // not a time: ignored
  const std::vector<RunHistory::Entry> entries = history.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].kind, ExecutorKind::cpu);
  EXPECT_EQ(entries[0].runs, 2u);
  EXPECT_NEAR(entries[0].stddev_seconds, 0.01414, 1e-4);
  EXPECT_EQ(entries[1].kind, ExecutorKind::device_compute);
}

TEST(RunHistory, AFileKeepsItAcrossRunsAndAddsToWhatIsKnown) {
  const std::string path = temporary_path("strata-history");
  RunHistory first;
  first.record("k", 100, ExecutorKind::cpu, 1.0);
  first.record("k", 100, ExecutorKind::cpu, 3.0);
  first.record("k", 100, ExecutorKind::device_compute, 0.5);
  first.save(path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  RunHistory second;
  second.record("k", 100, ExecutorKind::cpu, 5.0);
  second.load(path);
  const auto entries = second.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].runs, 3u);
  EXPECT_DOUBLE_EQ(entries[0].mean_seconds, 3.0);
  EXPECT_DOUBLE_EQ(entries[0].stddev_seconds, 2.0);  // of 1, 3, 5
  EXPECT_DOUBLE_EQ(second.hints("k", 100)->effective_speedup(), 6.0);
  std::filesystem::remove(path);
  RunHistory missing;
  missing.load(path);  // a missing file: nothing known yet
  EXPECT_TRUE(missing.empty());
}

TEST(RunHistory, AFileThatIsNotAHistoryIsAnErrorNamingIt) {
  const std::string path = temporary_path("strata-not-history");
  for (const char* text : {"not json", R"({"entries": []})",
                           R"({"strata_run_history": 1, "entries": [{"operation": "k"}]})",
                           R"({"strata_run_history": 1, "entries": [{"operation": "k", "bucket":
                              1, "kind": "gpu", "runs": 1, "mean_seconds": 1, "m2": 0}]})"}) {
    std::ofstream(path) << text;
    RunHistory history;
    try {
      history.load(path);
      ADD_FAILURE() << "loaded " << text;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
    }
    EXPECT_TRUE(history.empty()) << text;
  }
  std::filesystem::remove(path);
}

TEST(PlacementByName, TheConfigurationNamesThePolicy) {
  for (const char* name : {"least-loaded", "locality", "pats", "pats-dl", "fcfs"})
    EXPECT_STREQ(make_placement_policy(name)->name(), name);
  EXPECT_THROW(make_placement_policy("random"), Error);
  Config config = testing::small_config(1, 1);
  config.set("placement", "fcfs");
  EXPECT_THROW(config.set("placement", "heft"), ConfigError);
  EXPECT_THROW(config.set("runtime.transfer_impact_percent", "0"), ConfigError);
}

// FCFS on a hand-made queue: both executors held while tasks pool, then each idle one takes the
// oldest it may run, whatever the speedups; higher priority first.
TEST(Fcfs, IdleExecutorsTakeTheOldestTaskWhateverItsSpeedup) {
  Config config = testing::small_config(1, 1);
  config.set("placement", "fcfs");
  Runtime rt(config);
  auto owned = std::make_unique<ThreadPoolExecutor>("gpu", 1, make_priority_fifo_policy());
  owned->set_kind(ExecutorKind::device_compute, "gpu0");
  const ExecutorId gpu = rt.add_executor(std::move(owned));
  testing::Gate gate;
  std::atomic<int> held{0};
  for (const ExecutorId id : {rt.cpu(), gpu})
    rt.submit(TaskSpec("hold").on(id), [&] {
      held.fetch_add(1);
      gate.pass();
    });
  ASSERT_TRUE(testing::eventually([&] { return held.load() == 2; }));
  std::mutex lock;
  std::vector<int> order;
  const std::vector<double> speedups = {20, 1, 5, 10, 2, 15};
  for (std::size_t i = 0; i < speedups.size(); ++i) {
    TaskSpec spec("op");
    spec.on(rt.cpu()).on(gpu).with_speedup(speedups[i]);
    if (i == 4) spec.with_priority(Priority::high);
    rt.spawn(std::move(spec), [&, i] {
      std::lock_guard guard(lock);
      order.push_back(static_cast<int>(i));
    });
  }
  gate.open();
  rt.wait_all();
  ASSERT_EQ(order.size(), speedups.size());
  // The high-priority task goes first; the rest start oldest first (two executors may swap
  // neighbours as they record, but never more than one place).
  EXPECT_TRUE(order[0] == 4 || order[1] == 4);
  std::vector<int> rest;
  for (int i : order)
    if (i != 4) rest.push_back(i);
  for (std::size_t i = 0; i < rest.size(); ++i)
    EXPECT_LE(std::abs(rest[i] - static_cast<int>(i < 4 ? i : i + 1)), 2) << i;
}

}  // namespace
}  // namespace strata::runtime
