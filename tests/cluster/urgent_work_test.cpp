// Work another rank waits on runs first: the tasks of an operation whose output goes to another
// rank, and of packing and unpacking a box copied between ranks, run at high priority (before
// other ready tasks of their executors); the rest at the normal one. On 1, 2 and 4 ranks (in a
// cluster of one nothing leaves the rank, so nothing is urgent).

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cluster_test_support.hpp"
#include "strata/runtime/task_observer.hpp"

namespace strata::cluster::testing {
namespace {

using runtime::Access;
using runtime::Priority;

// The name and priority of every task body that runs on this rank while it is added.
class RanTasks final : public runtime::TaskObserver {
 public:
  void on_run(const runtime::TaskRun& run) override {
    std::lock_guard guard(lock_);
    ran_.emplace_back(std::string(run.name), run.priority);
  }
  // How many tasks whose names contain `part` ran at `priority`.
  int count(const std::string& part, Priority priority) {
    std::lock_guard guard(lock_);
    int found = 0;
    for (const auto& [name, ran_at] : ran_)
      found += name.find(part) != std::string::npos && ran_at == priority ? 1 : 0;
    return found;
  }

 private:
  std::mutex lock_;
  std::vector<std::pair<std::string, Priority>> ran_;
};

TEST(UrgentWork, WhatAnotherRankWaitsOnRunsFirst) {
  Driver& driver = *the_driver;
  const int other = driver.size() - 1;  // rank 0 itself in a cluster of one
  const bool alone = other == 0;
  constexpr std::uint64_t words = 64;
  const std::uint64_t shape[1] = {words};
  const ChunkRef stays = driver.create_chunk("stays on rank 0", words * 8, 0);
  const ChunkRef boxed = driver.create_chunk("boxed for the other rank", words * 8, 0);
  const ChunkRef read_there = driver.create_chunk("read on the other rank", words * 8, 0);
  const ChunkRef target = driver.create_chunk("target of the box", words * 8, other);
  const ChunkRef mixed = driver.create_chunk("mixed on the other rank", words * 8, other);
  driver.wait_all();
  auto ran = std::make_shared<RanTasks>();
  the_runtime->add_observer(ran);
  {
    // Planned together: each writer is still batched when what reads it elsewhere is planned.
    const PlanBatch batch(driver);
    driver.run_with(0, "fill", {{stays, Access::write}}, std::uint64_t{1});
    driver.run_with(0, "fill", {{boxed, Access::write}}, std::uint64_t{2});
    driver.run_with(0, "fill", {{read_there, Access::write}}, std::uint64_t{3});
    driver.run_with(other, "fill", {{target, Access::write}}, std::uint64_t{4});
    driver.copy_box(boxed, memory::Box::whole(shape), target, memory::Box::whole(shape), 8);
    driver.run_with(other, "mix", {{mixed, Access::write}, {read_there, Access::read}}, MixArgs{5});
  }
  driver.wait_all();
  the_runtime->remove_observer(ran.get());

  // Rank 0 runs three fills (four alone); two of them write what leaves it.
  EXPECT_EQ(ran->count("fill", Priority::high), alone ? 0 : 2);
  EXPECT_EQ(ran->count("fill", Priority::normal), alone ? 4 : 1);
  // The box is packed on rank 0 for the other rank (copied in place when alone); its send and
  // the drop of rank 0's copy after it are the network's tasks, at the normal priority.
  const std::string packing = "to [0:64] of 64 of box of boxed for the other rank";
  EXPECT_EQ(ran->count(packing, Priority::high), alone ? 0 : 1);
  EXPECT_EQ(ran->count(packing, Priority::normal), 0);
  EXPECT_EQ(as_words(driver.fetch(target)), filled(words, 2));
  std::vector<std::uint64_t> expected(words);
  const std::vector<std::uint64_t> input = filled(words, 3);
  mix(expected, {input}, MixArgs{5});
  EXPECT_EQ(as_words(driver.fetch(mixed)), expected);
  for (const ChunkRef chunk : {stays, boxed, read_there, target, mixed})
    driver.destroy(chunk);
  driver.wait_all();
}

}  // namespace
}  // namespace strata::cluster::testing
