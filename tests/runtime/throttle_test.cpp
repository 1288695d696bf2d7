// Back-pressure: submit waits while max_tasks_in_flight tasks are unfinished.

#include <gtest/gtest.h>

#include <atomic>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

TEST(Throttle, SubmitterNeverExceedsTheJobLimit) {
  Config config = testing::small_config(2);
  config.section<runtime::RuntimeSettings>().max_tasks_in_flight = 8;
  Runtime rt(config);
  std::atomic<std::uint64_t> peak{0};
  for (int i = 0; i < 2000; ++i) {
    rt.submit([&] {
      std::uint64_t now = rt.tasks_in_flight();
      std::uint64_t seen = peak.load();
      while (now > seen && !peak.compare_exchange_weak(seen, now)) {
      }
    });
    EXPECT_LE(rt.tasks_in_flight(), 8u);
  }
  rt.wait_all();
  EXPECT_LE(peak.load(), 8u);
  EXPECT_GE(peak.load(), 1u);
}

TEST(Throttle, TaskSpawningMoreChildrenThanTheLimitDoesNotDeadlock) {
  Config config = testing::small_config(1);
  config.section<runtime::RuntimeSettings>().max_tasks_in_flight = 4;
  Runtime rt(config);
  std::atomic<int> children{0};
  rt.submit([&](TaskContext& context) {
      for (int i = 0; i < 100; ++i)
        context.runtime().submit([&] { children.fetch_add(1); });
    }).wait();
  rt.wait_all();
  EXPECT_EQ(children.load(), 100);
}

}  // namespace
}  // namespace strata::runtime
