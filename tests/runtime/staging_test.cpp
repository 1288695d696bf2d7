// Staging: the hook stages a task's data before it runs and unstages after; the per-executor
// budget bounds how much is staged ahead; a staging error fails the task.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <mutex>
#include <set>
#include <thread>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

// Records what is staged; stages asynchronously on its own thread like a copy engine would.
class RecordingHook final : public StagingHook {
 public:
  void stage(const StagingRequest& request, std::function<void(std::exception_ptr)> done) override {
    {
      std::lock_guard guard(lock_);
      if (request.task_name == "unstageable") {
        done(std::make_exception_ptr(Error("no room in host memory for 'tile'")));
        return;
      }
      staged_bytes_ += request.bytes;
      peak_bytes_ = std::max(peak_bytes_, staged_bytes_);
      staged_ids_.insert(request.task_id);
      order_.emplace_back(request.task_name);
    }
    std::thread([done = std::move(done)] { done(nullptr); }).detach();
  }
  void unstage(const StagingRequest& request) override {
    std::lock_guard guard(lock_);
    staged_bytes_ -= request.bytes;
    EXPECT_EQ(staged_ids_.erase(request.task_id), 1u) << "unstaged what was never staged";
  }
  std::uint64_t peak_bytes() {
    std::lock_guard guard(lock_);
    return peak_bytes_;
  }
  std::uint64_t staged_bytes() {
    std::lock_guard guard(lock_);
    return staged_bytes_;
  }
  // Where `task` came in the order of staging (the number staged if it never was).
  std::size_t staged_as(const std::string& task) {
    std::lock_guard guard(lock_);
    return static_cast<std::size_t>(std::find(order_.begin(), order_.end(), task) - order_.begin());
  }

 private:
  std::mutex lock_;
  std::uint64_t staged_bytes_ = 0;
  std::uint64_t peak_bytes_ = 0;
  std::set<std::uint64_t> staged_ids_;
  std::vector<std::string> order_;
};

TEST(Staging, BudgetBoundsBytesStagedAheadPerExecutor) {
  Config config = testing::small_config(2);
  config.section<runtime::RuntimeSettings>().staging_max_bytes = 300;
  RecordingHook hook;
  Runtime rt(config);
  rt.set_staging_hook(&hook);
  std::vector<DataHandle> data;
  for (int i = 0; i < 40; ++i)
    data.push_back(rt.create_data("block", 100));
  std::atomic<int> ran{0};
  for (int i = 0; i < 40; ++i) {
    rt.submit(TaskSpec("use").reads(data[i]), [&] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ran.fetch_add(1);
    });
  }
  rt.wait_all();
  rt.set_staging_hook(nullptr);
  EXPECT_EQ(ran.load(), 40);
  EXPECT_LE(hook.peak_bytes(), 300u);
  EXPECT_GE(hook.peak_bytes(), 100u);
  EXPECT_EQ(hook.staged_bytes(), 0u) << "everything staged was unstaged";
}

TEST(Staging, AnExecutorsLimitLowersTheConfiguredBudget) {
  RecordingHook hook;
  Runtime rt(testing::small_config(2));  // staging_max_bytes: 1 GiB
  rt.set_staging_hook(&hook);
  rt.limit_staging_bytes(rt.cpu(), 300);
  for (int i = 0; i < 40; ++i) {
    rt.submit(TaskSpec("use").reads(rt.create_data("block", 100)),
              [] { std::this_thread::sleep_for(std::chrono::microseconds(200)); });
  }
  rt.wait_all();
  rt.set_staging_hook(nullptr);
  EXPECT_LE(hook.peak_bytes(), 300u);
  EXPECT_GE(hook.peak_bytes(), 100u);
  EXPECT_THROW(rt.limit_staging_bytes(ExecutorId{99}, 1), Error);
}

// Six readers of their own 100 B blocks, the first two held running until `first_done`; then a
// task on block 0 (held by the running first reader) and 10 B of new data. It adds less than it
// finds staged, so it is staged before the readers waiting on new blocks: the lightning paper's
// future work, scheduling for data locality (the next kernel on a superblock's chunks runs while
// they are staged). Returns the order it was staged in, and that of the third reader.
std::pair<std::size_t, std::size_t> staged_order_of_a_reuser(std::uint64_t max_bytes,
                                                             std::uint64_t max_tasks) {
  Config config = testing::small_config(2);
  config.section<runtime::RuntimeSettings>().staging_max_bytes = max_bytes;
  config.section<runtime::RuntimeSettings>().staging_max_tasks = max_tasks;
  RecordingHook hook;
  Runtime rt(config);
  rt.set_staging_hook(&hook);
  std::vector<DataHandle> blocks;
  for (int i = 0; i < 6; ++i)
    blocks.push_back(rt.create_data("block", 100));
  std::latch first_running(2), second_done(1), first_done(1);
  rt.submit(TaskSpec("reader 0").reads(blocks[0]), [&] {
    first_running.count_down();
    first_done.wait();
  });
  rt.submit(TaskSpec("reader 1").reads(blocks[1]), [&] {
    first_running.count_down();
    second_done.wait();
  });
  for (int i = 2; i < 6; ++i)
    rt.submit(TaskSpec("reader " + std::to_string(i)).reads(blocks[i]), [] {});
  first_running.wait();
  rt.submit(TaskSpec("next on block 0").reads(blocks[0]).writes(rt.create_data("new", 10)), [] {});
  second_done.count_down();  // frees a task slot (the task limit) while reader 0 holds block 0
  first_done.count_down();
  rt.wait_all();
  rt.set_staging_hook(nullptr);
  return {hook.staged_as("next on block 0"), hook.staged_as("reader 2")};
}

TEST(Staging, ATaskOnStagedDataGoesAheadOfTasksOnNewDataWithinTheBytes) {
  const auto [reuser, third] = staged_order_of_a_reuser(250, 64);  // two blocks fit, not three
  EXPECT_EQ(reuser, 2u);
  EXPECT_EQ(third, 3u);
}

TEST(Staging, ATaskOnStagedDataTakesTheNextFreeTaskSlot) {
  const auto [reuser, third] = staged_order_of_a_reuser(1 << 20, 2);  // two tasks at a time
  EXPECT_EQ(reuser, 2u);
  EXPECT_EQ(third, 3u);
}

TEST(Staging, TaskLargerThanTheBudgetIsAdmittedAlone) {
  Config config = testing::small_config(2);
  config.section<runtime::RuntimeSettings>().staging_max_bytes = 100;
  Runtime rt(config);
  DataHandle huge = rt.create_data("huge", 1000);
  bool ran = false;
  rt.submit(TaskSpec("big").reads(huge), [&] { ran = true; }).wait();
  EXPECT_TRUE(ran);
}

// The most tasks of `data` (one datum a task, or one for all) that ran at once on two workers,
// with a budget of 300 B and 1000 B a datum.
int most_at_once(bool shared, std::uint64_t budget = 300) {
  Config config = testing::small_config(2);
  config.section<runtime::RuntimeSettings>().staging_max_bytes = budget;
  Runtime rt(config);
  DataHandle one = rt.create_data("shared", 1000);
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  for (int i = 0; i < 20; ++i) {
    const DataHandle data = shared ? one : rt.create_data("own", 1000);
    rt.submit(TaskSpec("reader").reads(data), [&] {
      const int now = inside.fetch_add(1) + 1;
      int seen = most.load();
      while (seen < now && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      inside.fetch_sub(1);
    });
  }
  rt.wait_all();
  return most.load();
}

// Tasks on the same data (consecutive kernels on the same arrays) share its bytes in the budget:
// however large, they are staged ahead together and run side by side.
TEST(Staging, TasksOnTheSameDataShareItsBytesInTheBudget) {
  EXPECT_EQ(most_at_once(true), 2) << "readers of one datum are staged ahead together";
}

// Distinct data each above the budget: one task at a time, as before.
TEST(Staging, TasksOnDistinctDataAboveTheBudgetRunOneAtATime) {
  EXPECT_EQ(most_at_once(false), 1);
}

TEST(Staging, TaskLimitBoundsTasksStagedAhead) {
  Config config = testing::small_config(2);
  config.section<runtime::RuntimeSettings>().staging_max_tasks = 1;
  Runtime rt(config);
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  for (int i = 0; i < 50; ++i) {
    rt.submit(TaskSpec("one at a time").footprint(1), [&] {
      if (inside.fetch_add(1) != 0) overlapped = true;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      inside.fetch_sub(1);
    });
  }
  rt.wait_all();
  EXPECT_FALSE(overlapped.load());
}

TEST(Staging, StagingErrorFailsTheTaskWithTheHooksMessage) {
  RecordingHook hook;
  Runtime rt(testing::small_config(2));
  rt.set_staging_hook(&hook);
  DataHandle tile = rt.create_data("tile", 64);
  TaskHandle task = rt.submit(TaskSpec("unstageable").reads(tile), [] {});
  try {
    task.wait();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_NE(std::string(e.what()).find("no room in host memory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rt.wait_all(), TaskFailed);
  rt.set_staging_hook(nullptr);
}

}  // namespace
}  // namespace strata::runtime
