// Planning over ranks: chunks move to the rank that reads them, replicas stay until a write,
// and a randomized workload over every rank equals its sequential execution.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "cluster_test_support.hpp"

namespace strata::cluster::testing {
namespace {

using runtime::Access;

int last_rank() {
  return the_driver->size() - 1;
}

TEST(Plan, DriverWritesAndFetchesAChunkHomedOnAnotherRank) {
  Driver& driver = *the_driver;
  const std::vector<std::uint64_t> words = filled(3000, 7);
  ChunkRef chunk = driver.create_chunk("homed", words.size() * 8, last_rank());
  driver.write(chunk, as_bytes(words));
  EXPECT_EQ(as_words(driver.fetch(chunk)), words);
  EXPECT_TRUE(driver.holders(chunk).count(0));
  driver.wait_all();
}

TEST(Plan, RemoteReadKeepsAReplicaUntilTheChunkIsWritten) {
  Driver& driver = *the_driver;
  const int writer = driver.size() > 1 ? 1 : 0;
  const int reader = last_rank();
  const std::size_t words = 5000;  // several network pieces
  ChunkRef source = driver.create_chunk("source", words * 8, writer);
  ChunkRef result = driver.create_chunk("result", words * 8, reader);
  driver.run_with(writer, "fill", {{source, Access::write}}, std::uint64_t{11});

  const PlanStats before = driver.stats();
  driver.run_with(reader, "mix", {{result, Access::write}, {source, Access::read}}, MixArgs{1});
  driver.run_with(reader, "mix", {{result, Access::write}, {source, Access::read}}, MixArgs{2});
  const std::uint64_t expected_transfers = writer == reader ? 0 : 1;
  EXPECT_EQ(driver.stats().transfers - before.transfers, expected_transfers)
      << "the second read must use the replica";
  EXPECT_EQ(driver.holders(source), (std::set<int>{writer, reader}));

  // A write on the home rank invalidates the reader's replica; the next read fetches again.
  driver.run_with(writer, "fill", {{source, Access::write}}, std::uint64_t{12});
  EXPECT_EQ(driver.holders(source), std::set<int>{writer});
  driver.run_with(reader, "mix", {{result, Access::write}, {source, Access::read}}, MixArgs{3});
  EXPECT_EQ(driver.stats().transfers - before.transfers, 2 * expected_transfers);

  std::vector<std::uint64_t> expected(words);
  const std::vector<std::uint64_t> fresh = filled(words, 12);
  mix(expected, {fresh}, MixArgs{3});
  EXPECT_EQ(as_words(driver.fetch(result)), expected) << "the reader saw a stale replica";
  driver.wait_all();
}

TEST(Plan, UnknownOperationIsNamedAtTheDriver) {
  Driver& driver = *the_driver;
  try {
    driver.run(0, "no-such-operation", {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("unknown operation 'no-such-operation'"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("mix"), std::string::npos) << error.what();
  }
}

TEST(Plan, ReadingAChunkNothingWroteIsAnError) {
  Driver& driver = *the_driver;
  ChunkRef empty = driver.create_chunk("never-written", 64, 0);
  EXPECT_THROW(driver.run(0, "mix", {{empty, Access::read_write}}), Error);
  EXPECT_THROW(driver.fetch(empty), Error);
}

// The runtime's randomized stress test with its data spread over the ranks.
TEST(PlanStress, RandomOperationsOverAllRanksEqualSequentialExecution) {
  Driver& driver = *the_driver;
  std::mt19937_64 random(20261123);
  constexpr int chunk_count = 48;
  constexpr int operations = 3000;
  std::vector<ChunkRef> chunks;
  std::vector<std::vector<std::uint64_t>> reference;
  for (int c = 0; c < chunk_count; ++c) {
    const std::size_t words = 64 + random() % 2000;
    chunks.push_back(driver.create_chunk(std::string("c").append(std::to_string(c)), words * 8,
                                         static_cast<int>(random() % driver.size())));
    reference.push_back(filled(words, c));
    driver.write(chunks.back(), as_bytes(reference.back()));
  }
  for (int op = 0; op < operations; ++op) {
    const int rank = static_cast<int>(random() % driver.size());
    const int target = static_cast<int>(random() % chunk_count);
    MixArgs args{random(), random() % 2 == 0};
    std::vector<Use> uses{{chunks[target], args.update ? Access::read_write : Access::write}};
    std::vector<std::span<const std::uint64_t>> inputs;
    std::map<int, bool> used{{target, true}};
    const int reads = static_cast<int>(random() % 4);
    for (int r = 0; r < reads; ++r) {
      const int source = static_cast<int>(random() % chunk_count);
      if (used[source]) continue;
      used[source] = true;
      uses.push_back({chunks[source], Access::read});
      inputs.emplace_back(reference[source]);
    }
    driver.run_with(rank, "mix", uses, args);
    mix(reference[target], inputs, args);
  }
  driver.wait_all();
  for (int c = 0; c < chunk_count; ++c) {
    ASSERT_EQ(as_words(driver.fetch(chunks[c])), reference[c]) << "chunk c" << c;
  }
  const PlanStats stats = driver.stats();
  if (driver.size() > 1) {
    EXPECT_GT(stats.transfers, 0u);
  }
  RecordProperty("transfers", static_cast<int>(stats.transfers));
}

}  // namespace
}  // namespace strata::cluster::testing

namespace strata::cluster::testing {
namespace {

// Planning waits once the window of unfinished operations is full, and goes on as they finish:
// operations that cannot finish until a thread lets them go hold the driver there, and every one
// runs once released.
TEST(Plan, PlanningWaitsBeyondTheWindowUntilTheRanksCatchUp) {
  Driver& driver = *the_driver;
  driver.wait_all();
  hold_released = false;
  held_ran = 0;
  const std::uint64_t waits_before = driver.stats().window_waits;
  const ChunkRef chunk = driver.create_chunk("held", 64);
  driver.run_with(0, "fill", {{chunk, Access::write}}, std::uint64_t{1});
  constexpr std::uint64_t operations = 3 * test_plan_window;
  std::atomic<bool> planned_all{false};
  bool planned_all_when_released = true;
  std::uint64_t ran_when_released = 0;
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    planned_all_when_released = planned_all.load();
    ran_when_released = held_ran.load();
    hold_released = true;
  });
  for (std::uint64_t op = 0; op < operations; ++op)
    driver.run(0, "hold", {{chunk, Access::read}});
  planned_all = true;
  driver.wait_all();
  release.join();
  EXPECT_FALSE(planned_all_when_released) << "planning ran past the window";
  EXPECT_EQ(ran_when_released, 0u);
  EXPECT_EQ(held_ran.load(), operations);
  EXPECT_GT(driver.stats().window_waits, waits_before);
  driver.destroy(chunk);
}

TEST(Plan, DestroyFreesEveryCopyAndForgetsTheChunk) {
  Driver& driver = *the_driver;
  ChunkRef chunk = driver.create_chunk("short-lived", 4096, last_rank());
  driver.run_with(last_rank(), "fill", {{chunk, runtime::Access::write}}, std::uint64_t{3});
  EXPECT_EQ(as_words(driver.fetch(chunk)), filled(512, 3));
  EXPECT_EQ(driver.holders(chunk).size(), driver.size() > 1 ? 2u : 1u);
  driver.destroy(chunk);
  driver.wait_all();
  EXPECT_TRUE(driver.holders(chunk).empty());
  EXPECT_THROW(driver.fetch(chunk), Error);
}

}  // namespace
}  // namespace strata::cluster::testing
