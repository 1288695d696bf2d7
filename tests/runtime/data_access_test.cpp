// Data accesses: conflicting accesses follow submission order, readers share, reducers exclude
// each other but commute.

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "strata/runtime/runtime.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::Gate;
using testing::small_config;

TEST(DataAccess, WriteThenReadsThenWriteFollowSubmissionOrder) {
  Runtime rt(small_config(2));
  DataHandle data = rt.create_data("x");
  int value = 0;
  std::vector<int> seen(8, -1);
  rt.submit(TaskSpec("w1").writes(data), [&] { value = 1; });
  for (int i = 0; i < 4; ++i)
    rt.submit(TaskSpec("r").reads(data), [&, i] { seen[i] = value; });
  rt.submit(TaskSpec("w2").updates(data), [&] { value *= 10; });
  for (int i = 4; i < 8; ++i)
    rt.submit(TaskSpec("r").reads(data), [&, i] { seen[i] = value; });
  rt.wait_all();
  EXPECT_EQ(value, 10);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(seen[i], 1);
  for (int i = 4; i < 8; ++i)
    EXPECT_EQ(seen[i], 10);
}

TEST(DataAccess, ReadersOfTheSameDataRunConcurrently) {
  Runtime rt(small_config(2));
  DataHandle data = rt.create_data("shared");
  std::atomic<int> arrived{0};
  std::atomic<int> met{0};
  for (int i = 0; i < 2; ++i) {
    rt.submit(TaskSpec("reader").reads(data), [&] {
      arrived.fetch_add(1);
      // Only possible if both readers are inside at the same time.
      if (testing::eventually([&] { return arrived.load() == 2; })) met.fetch_add(1);
    });
  }
  rt.wait_all();
  EXPECT_EQ(met.load(), 2);
}

TEST(DataAccess, ReducersNeverOverlapAndAllContribute) {
  Runtime rt(small_config(2));
  DataHandle sum = rt.create_data("sum");
  long total = 0;
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  for (int i = 1; i <= 200; ++i) {
    rt.submit(TaskSpec("add").reduces(sum), [&, i] {
      if (inside.fetch_add(1) != 0) overlapped = true;
      total += i;
      inside.fetch_sub(1);
    });
  }
  long read_back = -1;
  rt.submit(TaskSpec("read").reads(sum), [&] { read_back = total; });
  rt.wait_all();
  EXPECT_FALSE(overlapped.load());
  EXPECT_EQ(read_back, 200 * 201 / 2);
}

TEST(DataAccess, ReducersWaitForEarlierWritersAndLaterReadersWaitForThem) {
  Runtime rt(small_config(2));
  DataHandle sum = rt.create_data("sum");
  Gate gate;
  long total = -1000;
  rt.submit(TaskSpec("init").writes(sum), [&] {
    gate.pass();
    total = 0;
  });
  for (int i = 0; i < 10; ++i)
    rt.submit(TaskSpec("add").reduces(sum), [&] { total += 1; });
  long seen = -1;
  TaskHandle reader = rt.submit(TaskSpec("read").reads(sum), [&] { seen = total; });
  gate.open();
  reader.wait();
  EXPECT_EQ(seen, 10);
}

TEST(DataAccess, TaskDeclaringTheSameDataTwiceDoesNotWaitForItself) {
  Runtime rt(small_config(2));
  DataHandle data = rt.create_data("twice");
  int value = 1;
  rt.submit(TaskSpec().reads(data).writes(data), [&] { value += 1; }).wait();
  rt.submit(TaskSpec().reduces(data).reduces(data), [&] { value += 1; }).wait();
  EXPECT_EQ(value, 3);
}

TEST(DataAccess, ManyReadersDoNotGrowWithoutBound) {
  Runtime rt(small_config(2));
  DataHandle data = rt.create_data("hot");
  std::atomic<int> ran{0};
  for (int i = 0; i < 20'000; ++i)
    rt.submit(TaskSpec().reads(data), [&] { ran.fetch_add(1); });
  int final_value = 0;
  rt.submit(TaskSpec().writes(data), [&] { final_value = ran.load(); });
  rt.wait_all();
  EXPECT_EQ(final_value, 20'000);
}

// A reader blocked on a gate, then `readers` quick readers, then a writer: the writer waits for
// the blocked reader and sees every reader finished.
void expect_writer_waits_for_slow_reader(int readers) {
  Runtime rt(small_config(2));
  DataHandle data = rt.create_data("x");
  Gate gate;
  std::atomic<int> readers_done{0};
  rt.submit(TaskSpec("slow reader").reads(data), [&] {
    gate.pass();
    readers_done.fetch_add(1);
  });
  for (int i = 0; i < readers; ++i)
    rt.spawn(TaskSpec("reader").reads(data), [&] { readers_done.fetch_add(1); });
  int seen_by_writer = -1;
  TaskHandle writer =
      rt.submit(TaskSpec("writer").writes(data), [&] { seen_by_writer = readers_done.load(); });
  EXPECT_TRUE(testing::eventually([&] { return readers_done.load() == readers; }));
  EXPECT_FALSE(writer.done());
  gate.open();
  writer.wait();
  EXPECT_EQ(seen_by_writer, readers + 1);
}

TEST(DataAccess, AWriterAfterReadersWaitsForTheSlowestReader) {
  expect_writer_waits_for_slow_reader(10);
}

// More readers than a reader group's first share of counts (2^16; the datum takes more).
TEST(DataAccess, AWriterWaitsForAReaderAmongMoreThanAGroupsFirstShare) {
  expect_writer_waits_for_slow_reader(140'000);
}

TEST(DataAccess, AWriterAfterAFailedReaderFailsNamingIt) {
  Runtime rt(small_config(2));
  DataHandle data = rt.create_data("x");
  rt.submit(TaskSpec("good reader").reads(data), [] {});
  rt.submit(TaskSpec("bad reader").reads(data), [] { throw std::runtime_error("torn page"); });
  rt.submit(TaskSpec("good reader").reads(data), [] {});
  bool ran = false;
  TaskHandle writer = rt.submit(TaskSpec("writer").writes(data), [&] { ran = true; });
  try {
    writer.wait();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.task(), "bad reader");
  }
  EXPECT_FALSE(ran);
  EXPECT_THROW(rt.wait_all(), TaskFailed);
}

TEST(DataAccess, ReducersWaitForEveryEarlierReader) {
  Runtime rt(small_config(2));
  DataHandle data = rt.create_data("x");
  Gate gate;
  std::atomic<int> readers_done{0};
  rt.submit(TaskSpec("slow reader").reads(data), [&] {
    gate.pass();
    readers_done.fetch_add(1);
  });
  rt.submit(TaskSpec("reader").reads(data), [&] { readers_done.fetch_add(1); });
  std::atomic<int> reducers_saw_all{0};
  std::vector<TaskHandle> reducers;
  for (int i = 0; i < 3; ++i) {
    reducers.push_back(rt.submit(TaskSpec("reduce").reduces(data), [&] {
      if (readers_done.load() == 2) reducers_saw_all.fetch_add(1);
    }));
  }
  EXPECT_TRUE(testing::eventually([&] { return readers_done.load() == 1; }));
  for (const TaskHandle& reducer : reducers)
    EXPECT_FALSE(reducer.done());
  gate.open();
  rt.wait_all();
  EXPECT_EQ(reducers_saw_all.load(), 3);
}

TEST(DataAccess, ReaderGroupsAreNotCountedAsTasks) {
  Runtime rt(small_config(2));
  DataHandle data = rt.create_data("x");
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 3; ++i)
      rt.submit(TaskSpec("read").reads(data), [] {});
    rt.submit(TaskSpec("write").writes(data), [] {});
  }
  rt.wait_all();
  EXPECT_EQ(rt.summary().tasks_succeeded, 20u);
  EXPECT_EQ(rt.tasks_in_flight(), 0u);
}

TEST(DataAccess, DataDroppedWhileItsReadersRunIsReleased) {
  // Under the address sanitizer (records are not recycled there) a leaked reader group shows.
  Runtime rt(small_config(2));
  Gate gate;
  std::atomic<int> ran{0};
  {
    DataHandle data = rt.create_data("dropped");
    rt.submit(TaskSpec("reader").reads(data), [&] {
      gate.pass();
      ran.fetch_add(1);
    });
    rt.submit(TaskSpec("reader").reads(data), [&] { ran.fetch_add(1); });
  }
  gate.open();
  rt.wait_all();
  EXPECT_EQ(ran.load(), 2);
}

TEST(DataAccess, EmptyDataHandleIsRefused) {
  Runtime rt(small_config(1));
  EXPECT_THROW(rt.submit(TaskSpec("bad").reads(DataHandle()), [] {}), Error);
  rt.wait_all();
}

}  // namespace
}  // namespace strata::runtime
