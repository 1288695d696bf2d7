// Queue order (TaskSpec::in_queue_order()): a task that follows another on the same in-order
// queue starts once the other's work is enqueued, yet finishes after it and fails with it.

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_queue.hpp"
#include "strata/runtime/runtime.hpp"
#include "strata/runtime/thread_pool_executor.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::eventually;
using testing::FakeQueue;
using testing::Gate;

ExecutorId add_queue_executor(Runtime& rt, const std::string& name) {
  return rt.add_executor(
      std::make_unique<ThreadPoolExecutor>(name, 1, make_priority_fifo_policy()));
}

// A task whose body enqueues `work` on `queue` and hands its completion to it.
TaskHandle submit_to_queue(Runtime& rt, TaskSpec spec, FakeQueue& queue, std::function<void()> work,
                           std::atomic<int>* bodies = nullptr) {
  return rt.submit(std::move(spec), [&queue, work = std::move(work), bodies](TaskContext& ctx) {
    queue.enqueue(work, ctx.defer_completion());
    if (bodies != nullptr) ++*bodies;
  });
}

// The order in which tasks finished, from their completion callbacks.
class FinishOrder {
 public:
  void watch(const TaskHandle& task) {
    task.on_complete([this](const TaskHandle& done) {
      std::lock_guard guard(lock_);
      names_.push_back(done.name());
    });
  }
  std::vector<std::string> names() {
    std::lock_guard guard(lock_);
    return names_;
  }

 private:
  std::mutex lock_;
  std::vector<std::string> names_;
};

// One device executor on a fake in-order queue, and a datum its tasks access.
class QueueOrder : public ::testing::Test {
 protected:
  FakeQueue queue;  // outlives the runtime, which waits for the work queued on it
  Runtime rt{testing::small_config()};
  const ExecutorId device = add_queue_executor(rt, "device0 compute");
  const DataHandle data = rt.create_data("x");
};

TEST_F(QueueOrder, ASuccessorIsEnqueuedWhileItsPredecessorsWorkRuns) {
  Gate body_gate, work_gate;
  std::atomic<int> value{0}, successor_bodies{0};
  // The successor is submitted while the first task's body has not run: it starts as an
  // ordinary successor and is released when the first task's work is enqueued.
  const TaskHandle first =
      rt.submit(TaskSpec("first").on(device).writes(data).in_queue_order(), [&](TaskContext& ctx) {
        body_gate.pass();
        queue.enqueue(
            [&] {
              work_gate.pass();
              value = 10;
            },
            ctx.defer_completion());
      });
  const TaskHandle second = submit_to_queue(
      rt, TaskSpec("second").on(device).updates(data).in_queue_order(), queue,
      [&] { value = value + 1; }, &successor_bodies);
  FinishOrder order;
  order.watch(first);
  order.watch(second);
  body_gate.open();
  EXPECT_TRUE(eventually([&] { return successor_bodies.load() == 1; }));
  EXPECT_FALSE(first.done());
  EXPECT_FALSE(second.done());
  work_gate.open();
  // Until every task retired: a task's completion callbacks run after its waiters are released,
  // and `order` must see (and outlive) both.
  rt.wait_all();
  EXPECT_EQ(value.load(), 11);
  EXPECT_EQ(order.names(), (std::vector<std::string>{"first", "second"}));
}

TEST_F(QueueOrder, ASuccessorSubmittedAfterTheEnqueueStartsAtOnce) {
  Gate work_gate;
  std::atomic<int> first_bodies{0}, successor_bodies{0};
  const TaskHandle first = submit_to_queue(
      rt, TaskSpec("first").on(device).writes(data).in_queue_order(), queue,
      [&] { work_gate.pass(); }, &first_bodies);
  ASSERT_TRUE(eventually([&] { return first_bodies.load() == 1; }));
  const TaskHandle second = submit_to_queue(
      rt, TaskSpec("second").on(device).reads(data).in_queue_order(), queue, [] {},
      &successor_bodies);
  EXPECT_TRUE(eventually([&] { return successor_bodies.load() == 1; }));
  EXPECT_FALSE(first.done());
  work_gate.open();
  rt.wait_all();
  EXPECT_EQ(second.status(), TaskStatus::succeeded);
}

TEST_F(QueueOrder, AWriterAfterQueueOrderedReadersStartsOnceTheyAreAllEnqueued) {
  Gate work_gate;
  std::mutex lock;
  std::vector<std::string> ran;  // the queue's order
  const auto record = [&](std::string what) {
    std::lock_guard guard(lock);
    ran.push_back(std::move(what));
  };
  std::atomic<int> writer_bodies{0};
  const TaskHandle first =
      submit_to_queue(rt, TaskSpec("first").on(device).writes(data).in_queue_order(), queue, [&] {
        work_gate.pass();
        record("first");
      });
  // Two readers (a reader group), then a writer that must wait only for their enqueue.
  submit_to_queue(rt, TaskSpec("reader a").on(device).reads(data).in_queue_order(), queue,
                  [&] { record("reader a"); });
  submit_to_queue(rt, TaskSpec("reader b").on(device).reads(data).in_queue_order(), queue,
                  [&] { record("reader b"); });
  const TaskHandle writer = submit_to_queue(
      rt, TaskSpec("writer").on(device).writes(data).in_queue_order(), queue,
      [&] { record("writer"); }, &writer_bodies);
  EXPECT_TRUE(eventually([&] { return writer_bodies.load() == 1; }));
  EXPECT_FALSE(first.done());
  work_gate.open();
  rt.wait_all();
  // The readers of a group are not ordered among themselves: one submitted after the first
  // task's enqueue is ready at once and may reach the queue before one the enqueue released.
  ASSERT_EQ(ran.size(), 4u);
  EXPECT_EQ(ran[0], "first");
  EXPECT_EQ(std::set<std::string>(ran.begin() + 1, ran.begin() + 3),
            (std::set<std::string>{"reader a", "reader b"}));
  EXPECT_EQ(ran[3], "writer");
  EXPECT_EQ(writer.status(), TaskStatus::succeeded);
}

TEST_F(QueueOrder, AWriterAfterAGroupWithAReaderElsewhereWaitsForTheGroupsFinish) {
  Gate work_gate;
  std::atomic<int> writer_bodies{0};
  std::atomic<bool> cpu_read{false};
  submit_to_queue(rt, TaskSpec("first").on(device).writes(data).in_queue_order(), queue,
                  [&] { work_gate.pass(); });
  submit_to_queue(rt, TaskSpec("reader").on(device).reads(data).in_queue_order(), queue, [] {});
  rt.submit(TaskSpec("reader on the CPU").reads(data), [&] { cpu_read = true; });
  std::atomic<bool> early{false};
  rt.submit(TaskSpec("writer").on(device).writes(data).in_queue_order(), [&](TaskContext& ctx) {
    if (!cpu_read.load()) early = true;  // the CPU reader must have finished
    ++writer_bodies;
    queue.enqueue([] {}, ctx.defer_completion());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(writer_bodies.load(), 0);
  work_gate.open();
  rt.wait_all();
  EXPECT_TRUE(cpu_read.load());
  EXPECT_EQ(writer_bodies.load(), 1);
  EXPECT_FALSE(early.load());
}

TEST_F(QueueOrder, WithoutThePromiseOrOnAnotherQueueASuccessorWaitsForTheFinish) {
  FakeQueue other_queue;  // idle once the test waited for every task
  const ExecutorId other = add_queue_executor(rt, "device1 compute");
  Gate work_gate;
  std::atomic<bool> finished{false};
  std::atomic<int> bodies{0};
  const TaskHandle first =
      submit_to_queue(rt, TaskSpec("first").on(device).writes(data).in_queue_order(), queue, [&] {
        work_gate.pass();
        finished = true;
      });
  std::atomic<int> early{0};
  const auto check = [&] {
    if (!finished.load()) ++early;
    ++bodies;
  };
  rt.submit(TaskSpec("unpromised").on(device).reads(data), check);
  rt.submit(TaskSpec("other queue").on(other).reads(data).in_queue_order(), [&](TaskContext& ctx) {
    check();
    other_queue.enqueue([] {}, ctx.defer_completion());
  });
  rt.submit(TaskSpec("cpu").reads(data), check);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(bodies.load(), 0);
  work_gate.open();
  rt.wait_all();
  EXPECT_EQ(bodies.load(), 3);
  EXPECT_EQ(early.load(), 0);
  EXPECT_EQ(first.status(), TaskStatus::succeeded);
}

TEST_F(QueueOrder, ASuccessorWhoseCompletionComesFirstFinishesAfterItsPredecessor) {
  // The first task's completion is held by the test; the second's work completes at once.
  std::promise<DeferredCompletion> held;
  const TaskHandle first =
      rt.submit(TaskSpec("first").on(device).writes(data).in_queue_order(),
                [&](TaskContext& ctx) { held.set_value(ctx.defer_completion()); });
  std::atomic<bool> second_work{false};
  const TaskHandle second =
      submit_to_queue(rt, TaskSpec("second").on(device).reads(data).in_queue_order(), queue,
                      [&] { second_work = true; });
  const TaskHandle after = rt.submit(TaskSpec("reader on the CPU").reads(data), [] {});
  FinishOrder order;
  order.watch(first);
  order.watch(second);
  DeferredCompletion completion = held.get_future().get();
  ASSERT_TRUE(eventually([&] { return second_work.load(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(second.done());  // parked until the first finishes
  EXPECT_FALSE(after.done());
  completion.complete();
  rt.wait_all();
  EXPECT_EQ(order.names(), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(second.status(), TaskStatus::succeeded);
  EXPECT_EQ(after.status(), TaskStatus::succeeded);
}

TEST_F(QueueOrder, APredecessorsFailureFailsTheSuccessorsItReleasedAndTheirDependents) {
  const DataHandle result = rt.create_data("y");
  Gate work_gate;
  std::atomic<int> successor_bodies{0};
  const TaskHandle first = submit_to_queue(
      rt, TaskSpec("kernel a").on(device).writes(data).in_queue_order(), queue, [&] {
        work_gate.pass();
        throw std::runtime_error("illegal address");
      });
  const TaskHandle second = submit_to_queue(
      rt, TaskSpec("kernel b").on(device).reads(data).writes(result).in_queue_order(), queue, [] {},
      &successor_bodies);
  const TaskHandle download = rt.submit(TaskSpec("download").reads(result), [] {});
  ASSERT_TRUE(eventually([&] { return successor_bodies.load() == 1; }));
  work_gate.open();
  try {
    second.wait();
    FAIL() << "the successor of a failed kernel succeeded";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.task(), "kernel a");
    EXPECT_NE(std::string(e.what()).find("illegal address"), std::string::npos) << e.what();
  }
  EXPECT_EQ(first.status(), TaskStatus::failed);
  EXPECT_NE(download.status(), TaskStatus::succeeded);
  EXPECT_THROW(download.wait(), Error);
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

TEST_F(QueueOrder, ASuccessorsOwnFailureIsKeptWhenItsPredecessorFailsToo) {
  std::promise<DeferredCompletion> held;
  const TaskHandle first =
      rt.submit(TaskSpec("first").on(device).writes(data).in_queue_order(),
                [&](TaskContext& ctx) { held.set_value(ctx.defer_completion()); });
  const TaskHandle second =
      submit_to_queue(rt, TaskSpec("second").on(device).reads(data).in_queue_order(), queue,
                      [] { throw std::runtime_error("second's own fault"); });
  DeferredCompletion completion = held.get_future().get();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  completion.fail(std::make_exception_ptr(std::runtime_error("first's fault")));
  try {
    second.wait();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_NE(std::string(e.what()).find("fault"), std::string::npos) << e.what();
  }
  EXPECT_EQ(first.status(), TaskStatus::failed);
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

}  // namespace
}  // namespace strata::runtime
