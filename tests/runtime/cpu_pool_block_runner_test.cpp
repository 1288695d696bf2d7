// The CPU device's block runner on the runtime's pool: every block runs once, the launching thread
// and the pool's workers share the blocks (but not while launches occupy every core; a launch
// left alone gets the core of one that finished), a launch finishes even when every worker is busy,
// and a block's exception reaches the launch only once no block runs any more.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "strata/runtime/device_executors.hpp"

namespace strata::runtime {
namespace {

Config workers(unsigned count) {
  Config config;
  config.section<RuntimeSettings>().cpu_threads = count;
  return config;
}

// Yields until `done` holds, for 10 s at most (a test that goes wrong fails instead of hanging).
template <typename Done>
void wait_until(Done done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::yield();
}

TEST(CpuPoolBlockRunner, EveryBlockRunsExactlyOnceForRandomCounts) {
  std::mt19937 random(7);
  for (unsigned threads : {1u, 2u, 3u}) {
    Runtime rt(workers(threads));
    auto runner = cpu_pool_block_runner(rt);
    for (int round = 0; round < 40; ++round) {
      const std::uint64_t blocks = round < 3 ? static_cast<std::uint64_t>(round) : random() % 3000;
      std::vector<std::atomic<int>> runs(blocks);
      runner->run(blocks, [&](std::uint64_t block) { runs.at(block).fetch_add(1); });
      for (std::uint64_t b = 0; b < blocks; ++b)
        ASSERT_EQ(runs[b].load(), 1) << threads << " workers, block " << b << " of " << blocks;
    }
  }
}

TEST(CpuPoolBlockRunner, TheLaunchingThreadAndThePoolShareTheBlocksOfALongKernel) {
  Runtime rt(workers(2));
  auto runner = cpu_pool_block_runner(rt);
  const std::thread::id launcher = std::this_thread::get_id();
  std::atomic<int> by_launcher{0}, by_pool{0};
  // 64 blocks in 16 ranges. The launcher's first range (blocks 0-3) takes 400 us: the rest is
  // worth helpers. Every later block waits (10 s at most) until both sides ran one: a helper
  // stuck in its block holds only its own range, so the launcher finds ranges left.
  const auto both_took_part = [&] { return by_launcher.load() > 0 && by_pool.load() > 0; };
  runner->run(64, [&](std::uint64_t block) {
    (std::this_thread::get_id() == launcher ? by_launcher : by_pool).fetch_add(1);
    if (block < 4) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      return;
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!both_took_part() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  });
  EXPECT_GT(by_launcher.load(), 0);
  EXPECT_GT(by_pool.load(), 0);
  EXPECT_EQ(by_launcher.load() + by_pool.load(), 64);
}

TEST(CpuPoolBlockRunner, ASmallKernelRunsOnTheLaunchingThreadWithoutHelpers) {
  Runtime rt(workers(2));
  auto runner = cpu_pool_block_runner(rt);
  std::atomic<int> ran{0};
  for (int launch = 0; launch < 50; ++launch)
    runner->run(64, [&](std::uint64_t) { ran.fetch_add(1); });
  rt.wait_all();
  EXPECT_EQ(ran.load(), 50 * 64);
  // Helpers are runtime tasks: two a launch if every launch asked for them. (A launching thread
  // preempted in its first range may ask now and then.)
  EXPECT_LE(rt.summary().tasks_succeeded, 5u);
}

TEST(CpuPoolBlockRunner, LaunchesOnEveryCoreRunWithoutHelpers) {
  Runtime rt(workers(2));
  auto runner = cpu_pool_block_runner(rt);
  // Two long kernels side by side on two workers' cores: each launch's first block waits until
  // both launches run, so each sees the other when it weighs helpers, and neither asks for any.
  // The blocks of each one's last two ranges (of 16) wait until both reached them, so neither
  // finishes with ranges of the other left to offer its core to.
  std::atomic<int> started{0};
  std::atomic<int> at_the_end{0};
  std::atomic<int> ran{0};
  const auto wait_for_both = [](std::atomic<int>& count) {
    wait_until([&] { return count.load() >= 2; });
  };
  const auto launch = [&] {
    bool reached_the_end = false;
    runner->run(64, [&](std::uint64_t block) {
      if (block == 0) {
        started.fetch_add(1);
        wait_for_both(started);
      }
      if (block >= 56) {
        if (!std::exchange(reached_the_end, true)) at_the_end.fetch_add(1);
        wait_for_both(at_the_end);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      ran.fetch_add(1);
    });
  };
  std::thread other(launch);
  launch();
  other.join();
  rt.wait_all();
  EXPECT_EQ(started.load(), 2);
  EXPECT_EQ(ran.load(), 2 * 64);
  EXPECT_EQ(rt.summary().tasks_succeeded, 0u);  // a helper is a runtime task
}

TEST(CpuPoolBlockRunner, ALaunchLeftAloneGetsTheCoreOfALaunchThatFinished) {
  Runtime rt(workers(2));
  auto runner = cpu_pool_block_runner(rt);
  // A short launch beside a long one on two workers' cores. The long one weighs helpers while
  // the short one still runs (the short one's blocks wait for the long one's block 4, which runs
  // only after its first range and that weighing), so it asks for none; once the short one has
  // nothing left to claim it offers its core, and a pool worker runs some of the long one's
  // blocks (each 2 ms: 16 ranges of 8 ms, time enough for the offer on a loaded machine).
  std::atomic<bool> short_started{false};
  std::atomic<bool> long_past_first_range{false};
  std::atomic<int> long_blocks_on_the_pool{0};
  const std::thread::id main_launcher = std::this_thread::get_id();
  std::thread short_launch([&] {
    runner->run(64, [&](std::uint64_t) {
      short_started.store(true);
      wait_until([&] { return long_past_first_range.load(); });
    });
  });
  const std::thread::id short_launcher = short_launch.get_id();
  runner->run(64, [&](std::uint64_t block) {
    if (block == 0) wait_until([&] { return short_started.load(); });
    if (block >= 4) long_past_first_range.store(true);
    const std::thread::id self = std::this_thread::get_id();
    if (self != main_launcher && self != short_launcher) long_blocks_on_the_pool.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  short_launch.join();
  rt.wait_all();
  EXPECT_GT(long_blocks_on_the_pool.load(), 0);
}

TEST(CpuPoolBlockRunner, ALaunchFinishesWhileEveryWorkerIsBusy) {
  Runtime rt(workers(2));
  auto runner = cpu_pool_block_runner(rt);
  std::latch release(1);
  std::atomic<int> occupied{0};
  for (int w = 0; w < 2; ++w) {
    rt.submit(TaskSpec("occupy").on(rt.cpu()), [&] {
      occupied.fetch_add(1);
      release.wait();
    });
  }
  while (occupied.load() < 2)
    std::this_thread::yield();
  std::atomic<int> ran{0};
  runner->run(100, [&](std::uint64_t) { ran.fetch_add(1); });  // the launcher runs them all
  EXPECT_EQ(ran.load(), 100);
  release.count_down();
  rt.wait_all();  // the helper tasks run late, find nothing left and end
  EXPECT_EQ(ran.load(), 100);
}

TEST(CpuPoolBlockRunner, ABlocksExceptionReachesTheLaunchOnceNoBlockRuns) {
  Runtime rt(workers(2));
  auto runner = cpu_pool_block_runner(rt);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> running{0};
    try {
      runner->run(200, [&](std::uint64_t block) {
        running.fetch_add(1);
        if (block == 3) {
          running.fetch_sub(1);
          throw std::range_error("block 3 is cursed");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        running.fetch_sub(1);
      });
      FAIL() << "expected the block's exception";
    } catch (const std::range_error& e) {
      EXPECT_STREQ(e.what(), "block 3 is cursed");
      EXPECT_EQ(running.load(), 0) << "a block still ran when the launch failed";
    }
  }
  rt.wait_all();
}

}  // namespace
}  // namespace strata::runtime
