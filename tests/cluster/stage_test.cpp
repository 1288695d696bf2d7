// Stages and their hand-out: a stage instance builds a graph of fine-grain tasks on its rank and
// ends when they have; a graph of instances is handed out over the ranks as they become ready,
// preferring the rank that holds an instance's inputs. On 1, 2 and 4 ranks.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "cluster_test_support.hpp"
#include "strata/cluster/stage_graph.hpp"

namespace strata::cluster::testing {
namespace {

using runtime::Access;
constexpr std::size_t words = 64;

std::vector<std::size_t> predecessors_of(const StageGraph& graph, std::size_t index) {
  const auto list = graph.predecessors(index);
  return {list.begin(), list.end()};
}

TEST(StageGraph, DependenciesFollowTheChunksReadAndWritten) {
  StageGraph graph;
  const ChunkRef a{1}, b{2}, c{3};
  const std::size_t write_a = graph.add({"s", {{a, Access::write}}, {}, {}});
  const std::size_t read_a_1 = graph.add({"s", {{b, Access::write}, {a, Access::read}}, {}, {}});
  const std::size_t read_a_2 = graph.add({"s", {{c, Access::write}, {a, Access::read}}, {}, {}});
  const std::size_t rewrite_a = graph.add({"s", {{a, Access::read_write}}, {}, {}});
  const std::size_t read_b_c = graph.add({"s", {{b, Access::read}, {c, Access::read}}, {}, {}});
  EXPECT_TRUE(graph.predecessors(write_a).empty());
  EXPECT_EQ(predecessors_of(graph, read_a_1), std::vector<std::size_t>{write_a});
  EXPECT_EQ(predecessors_of(graph, read_a_2), std::vector<std::size_t>{write_a});
  // Written after two readers: waits for the writer and both readers.
  EXPECT_EQ(predecessors_of(graph, rewrite_a),
            (std::vector<std::size_t>{write_a, read_a_1, read_a_2}));
  EXPECT_EQ(predecessors_of(graph, read_b_c), (std::vector<std::size_t>{read_a_1, read_a_2}));
  EXPECT_EQ(graph.instance(read_b_c).label, "s 4");
}

TEST(Stage, OneInstanceRunsItsTaskGraphAndItsOutputIsReadOnAnotherRank) {
  Driver& driver = *the_driver;
  const int last = driver.size() - 1;
  const ChunkRef input = driver.create_chunk("stage input", words * 8, last);
  const ChunkRef output = driver.create_chunk("stage output", words * 8, last);
  const ChunkRef after = driver.create_chunk("after the stage", words * 8, 0);
  driver.run_with(last, "fill", {{input, Access::write}}, std::uint64_t{7});
  const StageMixArgs args{11, 0};
  plan_stage_with(driver, last, "mix_stage", {{output, Access::write}, {input, Access::read}},
                  args);
  // A later operation on rank 0 reads the stage's output.
  driver.run_with(0, "mix", {{after, Access::write}, {output, Access::read}}, MixArgs{3, false});
  const std::vector<std::uint64_t> in = filled(words, 7);
  const std::vector<std::uint64_t> expected = stage_mixed(words, {in}, args);
  EXPECT_EQ(as_words(driver.fetch(output)), expected);
  std::vector<std::uint64_t> mixed(words);
  mix(mixed, {expected}, MixArgs{3, false});
  EXPECT_EQ(as_words(driver.fetch(after)), mixed);
  driver.wait_all();
}

// A random graph of instances over a few chunks, handed out, against the same instances run one
// after another on the host.
TEST(StageHandOut, ARandomGraphGivesWhatASequentialRunGives) {
  Driver& driver = *the_driver;
  std::mt19937 random(2026);
  constexpr int chunk_count = 10;
  std::vector<ChunkRef> chunks;
  std::vector<std::vector<std::uint64_t>> reference(chunk_count);
  std::vector<bool> written(chunk_count, false);
  for (int c = 0; c < chunk_count; ++c) {
    chunks.push_back(driver.create_chunk("dag " + std::to_string(c), words * 8, c % driver.size()));
    if (c < 3) {
      driver.run_with(c % driver.size(), "fill", {{chunks[c], Access::write}}, std::uint64_t(c));
      reference[c] = filled(words, c);
      written[c] = true;
    }
  }
  StageGraph graph;
  for (int i = 0; i < 60; ++i) {
    const int out = static_cast<int>(random() % chunk_count);
    std::vector<Use> uses{{chunks[out], Access::write}};
    std::vector<std::span<const std::uint64_t>> inputs;
    const int reads = static_cast<int>(random() % 4);
    for (int r = 0; r < reads; ++r) {
      const int in = static_cast<int>(random() % chunk_count);
      const bool used = std::any_of(uses.begin(), uses.end(),
                                    [&](const Use& use) { return use.chunk.id == chunks[in].id; });
      if (!written[in] || used) continue;
      uses.push_back({chunks[in], Access::read});
      inputs.push_back(reference[in]);
    }
    const StageMixArgs args{static_cast<std::uint64_t>(100 + i), random() % 3 * 200};
    graph.add_with("mix_stage", uses, args);
    reference[out] = stage_mixed(words, inputs, args);
    written[out] = true;
  }
  const HandOutReport report = hand_out(driver, graph, HandOutOptions{{2}, true, {}});
  for (int c = 0; c < chunk_count; ++c) {
    if (!written[c]) continue;
    EXPECT_EQ(as_words(driver.fetch(chunks[c])), reference[c]) << "chunk " << c;
  }
  ASSERT_EQ(report.instances.size(), graph.size());
  std::size_t total = 0;
  for (std::size_t count : report.per_rank)
    total += count;
  EXPECT_EQ(total, graph.size());
  // Handed out only once ready, never more at once on a rank than its slots.
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const HandedInstance& instance = report.instances[i];
    EXPECT_GE(instance.handed, instance.ready) << "instance " << i;
    EXPECT_GE(instance.ended, instance.handed) << "instance " << i;
    for (std::size_t p : graph.predecessors(i))
      EXPECT_GE(instance.handed, report.instances[p].ended) << "instance " << i << " after " << p;
    int overlapping = 0;
    for (const HandedInstance& other : report.instances) {
      if (other.rank == instance.rank && other.handed <= instance.handed &&
          other.ended > instance.handed) {
        ++overlapping;
      }
    }
    EXPECT_LE(overlapping, 2) << "instance " << i << " on rank " << instance.rank;
  }
  driver.wait_all();
}

// A chain whose links each read the previous link's large output: with free slots on every
// rank, each link goes where its input already is.
TEST(StageHandOut, AnInstanceGoesToTheRankThatHoldsItsInputs) {
  Driver& driver = *the_driver;
  constexpr std::uint64_t big = 256 * 1024;
  const int home = driver.size() - 1;
  std::vector<ChunkRef> links;
  for (int i = 0; i < 6; ++i)
    links.push_back(driver.create_chunk("link " + std::to_string(i), big, 0));
  const ChunkRef start = driver.create_chunk("chain start", big, home);
  driver.run_with(home, "fill", {{start, Access::write}}, std::uint64_t{5});
  StageGraph graph;
  ChunkRef previous = start;
  for (const ChunkRef link : links) {
    graph.add_with("mix_stage", {{link, Access::write}, {previous, Access::read}},
                   StageMixArgs{1, 0});
    previous = link;
  }
  const HandOutReport report = hand_out(driver, graph, HandOutOptions{{2}, true, {}});
  for (const HandedInstance& instance : report.instances) {
    EXPECT_EQ(instance.rank, home);
    EXPECT_TRUE(instance.held_inputs);
  }
  std::vector<std::uint64_t> value = filled(big / 8, 5);
  for (std::size_t i = 0; i < links.size(); ++i)
    value = stage_mixed(big / 8, {value}, StageMixArgs{1, 0});
  EXPECT_EQ(as_words(driver.fetch(links.back())), value);
  driver.wait_all();
}

// Many short instances and a few long ones, one slot per rank: every rank gets work, and a
// rank busy with a long one is not handed more meanwhile.
TEST(StageHandOut, UnevenInstancesSpreadOverTheRanksOneSlotEach) {
  Driver& driver = *the_driver;
  const ChunkRef input = driver.create_chunk("uneven input", words * 8, 0);
  driver.run_with(0, "fill", {{input, Access::write}}, std::uint64_t{9});
  StageGraph graph;
  std::vector<ChunkRef> outputs;
  for (int i = 0; i < 24; ++i) {
    outputs.push_back(driver.create_chunk("uneven " + std::to_string(i), words * 8, 0));
    const std::uint64_t sleep_us = i % 8 == 0 ? 30'000 : 1'000;
    graph.add_with("mix_stage", {{outputs.back(), Access::write}, {input, Access::read}},
                   StageMixArgs{static_cast<std::uint64_t>(i), sleep_us});
  }
  const HandOutReport report = hand_out(driver, graph, HandOutOptions{{1}, false, {}});
  for (int r = 0; r < driver.size(); ++r)
    EXPECT_GT(report.per_rank[static_cast<std::size_t>(r)], 0u) << "rank " << r;
  for (const HandedInstance& a : report.instances) {
    for (const HandedInstance& b : report.instances) {
      if (&a == &b || a.rank != b.rank) continue;
      EXPECT_FALSE(b.handed > a.handed && b.handed < a.ended) << "two at once on rank " << a.rank;
    }
  }
  const std::vector<std::uint64_t> in = filled(words, 9);
  EXPECT_EQ(as_words(driver.fetch(outputs[5])), stage_mixed(words, {in}, StageMixArgs{5, 1000}));
  driver.wait_all();
}

// With cost estimates, the ready instance with the longest path to the end goes first: the head
// of a long chain, added last, is handed out before the short independent ones.
TEST(StageHandOut, WithCostsTheLongestPathGoesFirst) {
  Driver& driver = *the_driver;
  const int ranks = driver.size();
  StageGraph graph;
  std::vector<ChunkRef> chunks;
  for (int i = 0; i <= ranks; ++i) {
    chunks.push_back(driver.create_chunk("short " + std::to_string(i), words * 8, 0));
    graph.add_with("mix_stage", {{chunks.back(), Access::write}}, StageMixArgs{1, 0}, {}, 0.001);
  }
  const ChunkRef head = driver.create_chunk("chain head", words * 8, 0);
  const ChunkRef tail = driver.create_chunk("chain tail", words * 8, 0);
  const std::size_t first =
      graph.add_with("mix_stage", {{head, Access::write}}, StageMixArgs{2, 0}, "chain head", 0.001);
  graph.add_with("mix_stage", {{tail, Access::write}, {head, Access::read}}, StageMixArgs{3, 0},
                 "chain tail", 0.05);
  const HandOutReport report = hand_out(driver, graph, HandOutOptions{{1}, false, {}});
  for (int i = 0; i <= ranks; ++i)
    EXPECT_LT(report.instances[first].handed, report.instances[static_cast<std::size_t>(i)].handed)
        << "short instance " << i;
  const std::vector<std::uint64_t> head_words = stage_mixed(words, {}, StageMixArgs{2, 0});
  EXPECT_EQ(as_words(driver.fetch(tail)), stage_mixed(words, {head_words}, StageMixArgs{3, 0}));
  driver.wait_all();
}

// With costs and a worker per rank, an instance goes to the rank where it starts first: once every
// rank runs one, the last short instance goes to a rank running a short one, not to the one with a
// long one that is next in turn (where handing out by free slots alone puts it).
TEST(StageHandOut, WithCostsAndWorkersAnInstanceGoesWhereItStartsFirst) {
  Driver& driver = *the_driver;
  const int ranks = driver.size();
  if (ranks < 2) GTEST_SKIP() << "needs two ranks";
  for (const bool by_start : {true, false}) {
    StageGraph graph;
    std::vector<ChunkRef> chunks;
    for (int i = 0; i <= ranks; ++i) {
      chunks.push_back(driver.create_chunk("timed " + std::to_string(i), words * 8, 0));
      graph.add_with("mix_stage", {{chunks.back(), Access::write}}, StageMixArgs{1, 0}, {},
                     i == 0 ? 10.0 : 0.01);  // estimates: the body runs at once regardless
    }
    HandOutOptions options{{2}, false, {}};
    if (by_start) options.workers = {1};
    const HandOutReport report = hand_out(driver, graph, options);
    // The long one went first, to rank 0; the next ranks-1 short ones to the other ranks.
    ASSERT_EQ(report.instances[0].rank, 0);
    const int last = report.instances[static_cast<std::size_t>(ranks)].rank;
    if (by_start) {
      EXPECT_NE(last, 0) << "the last short instance queued behind the long one";
    } else {
      EXPECT_EQ(last, 0) << "by free slots, rank 0 is next in turn";
    }
    for (const ChunkRef chunk : chunks)
      driver.destroy(chunk);
  }
  driver.wait_all();
}

TEST(StageHandOut, WrongSlotCountsAreRefused) {
  Driver& driver = *the_driver;
  StageGraph graph;
  graph.add({"mix_stage", {}, {}, {}});
  HandOutOptions options;
  options.slots.assign(static_cast<std::size_t>(driver.size()) + 1, 1);
  EXPECT_THROW(hand_out(driver, graph, options), Error);
  options.slots = {0};
  EXPECT_THROW(hand_out(driver, graph, options), Error);
  options.slots = {1};
  options.workers = {0};
  EXPECT_THROW(hand_out(driver, graph, options), Error);
  options.workers.assign(static_cast<std::size_t>(driver.size()) + 1, 1);
  EXPECT_THROW(hand_out(driver, graph, options), Error);
}

}  // namespace
}  // namespace strata::cluster::testing
