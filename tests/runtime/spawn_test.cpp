// spawn(): tasks submitted without a handle run, follow their data accesses in submission order,
// reduce under the gates, and their failures reach wait_all() with the task's name.

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::small_config;

TEST(Spawn, TasksWithoutHandlesRunAndWaitAllWaitsForThem) {
  Runtime rt(small_config());
  std::atomic<int> ran{0};
  for (int i = 0; i < 10'000; ++i)
    rt.spawn([&] { ran.fetch_add(1, std::memory_order_relaxed); });
  rt.wait_all();
  EXPECT_EQ(ran.load(), 10'000);
}

TEST(Spawn, DataAccessesOrderSpawnedTasksInSubmissionOrder) {
  Runtime rt(small_config());
  DataHandle cell = rt.create_data("cell");
  std::vector<int> log;  // only ever touched by writers of `cell`, one at a time
  int sum = 0;
  for (int i = 0; i < 1'000; ++i) {
    rt.spawn(TaskSpec("append").updates(cell), [&, i] { log.push_back(i); });
    if (i % 10 == 0) rt.spawn(TaskSpec("reduce").reduces(cell), [&] { sum += 1; });
  }
  rt.wait_all();
  ASSERT_EQ(log.size(), 1'000u);
  for (int i = 0; i < 1'000; ++i)
    EXPECT_EQ(log[i], i);
  EXPECT_EQ(sum, 100);
}

TEST(Spawn, AFailureReachesWaitAllWithTheTaskName) {
  Runtime rt(small_config());
  DataHandle data = rt.create_data("data");
  std::atomic<bool> dependent_ran{false};
  rt.spawn(TaskSpec("decode tile 3").writes(data), [] { throw std::runtime_error("bad tile"); });
  rt.spawn(TaskSpec("use tile 3").reads(data), [&] { dependent_ran = true; });
  try {
    rt.wait_all();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.task(), "decode tile 3");
    EXPECT_NE(std::string(e.what()).find("bad tile"), std::string::npos);
  }
  EXPECT_FALSE(dependent_ran.load());
  rt.spawn([] {});  // usable afterwards
  rt.wait_all();
}

}  // namespace
}  // namespace strata::runtime
