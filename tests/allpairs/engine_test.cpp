// The engine against a direct computation of every pair, for several cache configurations, on
// however many ranks the test runs (1, 2 or 4).

#include "strata/allpairs/engine.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

#include "engine_test_support.hpp"
#include "strata/allpairs/held_items.hpp"
#include "strata/allpairs/results_file.hpp"
#include "strata/allpairs/results_journal.hpp"
#include "strata/allpairs/sequential_run.hpp"
#include "strata/cluster/work_stealing.hpp"
#include "strata/device/backends.hpp"
#include "vector_application.hpp"

namespace strata::allpairs::testing {
namespace {

constexpr ItemIndex items = 24;

EngineOptions options_for(const std::filesystem::path& dir) {
  EngineOptions options;
  options.output = dir / "results.bin";
  options.config.section<runtime::RuntimeSettings>().cpu_threads = 2;
  options.config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  options.jobs_per_device = 8;
  // A small device pool: the default (90% of the host's memory for the CPU device) costs the
  // sanitizers seconds per run.
  options.cache.device_bytes = 1 << 20;
  return options;
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(std::filesystem::file_size(path), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

// Runs the engine on every rank; on rank 0 checks every result against the direct computation.
// With `node`, the run shares that node with other work.
EngineReport run_and_check(const VectorApplication& app, const EngineOptions& options,
                           const PairSpace& space, node::Node* node = nullptr) {
  const EngineReport report =
      node ? run_all_pairs(app, options, *node) : run_all_pairs(app, options, network());
  if (network().rank() == 0) {
    std::vector<std::pair<ItemIndex, ItemIndex>> expected;
    for (const auto& pair : PairBlock::whole(space).list(space))
      if (app.wants(pair.first, pair.second)) expected.push_back(pair);
    const auto reference = app.reference(expected);
    const auto results = read_results<Dot>(options.output);
    EXPECT_EQ(results.size(), reference.size());
    for (const auto& result : results) {
      auto found = reference.find({result.left, result.right});
      EXPECT_NE(found, reference.end()) << result.left << "," << result.right;
      if (found != reference.end()) {
        EXPECT_NEAR(result.value.value, found->second, 1e-5);
      }
    }
    EXPECT_EQ(report.pairs_computed + report.pairs_resumed + report.pairs_skipped, space.pairs());
    EXPECT_FALSE(std::filesystem::exists(ResultsJournal::journal_path(options.output)));
  }
  barrier();
  return report;
}

struct CacheCase {
  const char* name;
  CacheOptions cache;
  ItemIndex leaf;
  bool cache_aware_stealing = true;
};

class EngineCaches : public ::testing::TestWithParam<CacheCase> {};

TEST_P(EngineCaches, EveryPairEqualsTheDirectComputation) {
  const auto dir = shared_directory("allpairs-cache");
  if (network().rank() == 0) write_vectors(dir, items, 7);
  barrier();
  VectorApplication app(dir, items);
  EngineOptions options = options_for(dir);
  options.cache = GetParam().cache;
  if (options.cache.device_slots == 0) options.cache.device_bytes = 1 << 20;
  options.leaf = GetParam().leaf;
  options.cache_aware_stealing = GetParam().cache_aware_stealing;
  const EngineReport report = run_and_check(app, options, PairSpace::all_pairs(items));
  if (network().rank() == 0) {
    EXPECT_EQ(report.pairs_computed, std::uint64_t{items} * (items - 1) / 2);
    EXPECT_GE(report.loads + report.remote_hits, std::uint64_t{items});
    if (GetParam().cache.host_slots == 0 && GetParam().cache.host_bytes == 0 &&
        network().size() == 1) {
      EXPECT_EQ(report.loads, std::uint64_t{items}) << "an unlimited cache loads each item once";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configurations, EngineCaches,
    ::testing::Values(CacheCase{"unlimited", CacheOptions{}, 4},
                      CacheCase{"single_pair_leaves", CacheOptions{}, 1},
                      // Device memory for 3 items: items move between device and host all the time.
                      CacheCase{"tiny_device", CacheOptions{.device_slots = 3}, 4},
                      // Four items on the host: items are discarded and loaded again.
                      CacheCase{"tiny_host", CacheOptions{.device_slots = 3, .host_slots = 4}, 2},
                      CacheCase{"host_bytes", CacheOptions{.host_bytes = 6 * 64 * 4}, 3},
                      CacheCase{"no_distributed", CacheOptions{.distributed = false}, 4},
                      CacheCase{"three_hops", CacheOptions{.host_slots = 6, .hops = 3}, 4},
                      // Thieves take the largest block (cache-aware stealing off).
                      CacheCase{"largest_block_stealing", CacheOptions{.host_slots = 6}, 2, false}),
    [](const auto& test) { return std::string(test.param.name); });

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

// STRATA_ALLPAIRS_* variables reach a run through the options' defaults: caches of a few items
// load items again, where an unlimited cache loads each item once (the "unlimited" case above).
TEST(EngineSettings, EnvironmentVariablesSizeTheCaches) {
  const auto dir = shared_directory("allpairs-environment");
  if (network().rank() == 0) write_vectors(dir, items, 11);
  barrier();
  VectorApplication app(dir, items);
  const ScopedEnv host("STRATA_ALLPAIRS_HOST_CACHE", "4 slots");
  const ScopedEnv device("STRATA_ALLPAIRS_DEVICE_CACHE", "3 slots");
  const ScopedEnv leaf("STRATA_ALLPAIRS_LEAF", "2");
  const ScopedEnv jobs("STRATA_ALLPAIRS_JOBS_PER_DEVICE", "3");
  EngineOptions options;
  EXPECT_EQ(options.cache.host_slots, 4u);
  EXPECT_EQ(options.cache.device_slots, 3u);
  EXPECT_EQ(options.cache.host_bytes + options.cache.device_bytes, 0u);
  EXPECT_EQ(options.leaf, 2u);
  EXPECT_EQ(options.jobs_per_device, 3u);
  options.output = dir / "results.bin";
  options.config.section<runtime::RuntimeSettings>().cpu_threads = 2;
  options.config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  const EngineReport report = run_and_check(app, options, PairSpace::all_pairs(items));
  if (network().rank() == 0) {
    EXPECT_GT(report.loads + report.remote_hits, std::uint64_t{items})
        << "a host cache of 4 items loads items again";
  }
}

// One node per process: an all-pairs run and a planned job work on it at the same time, on every
// rank, and both are correct.
TEST(EngineOnANode, AnAllPairsRunAndAPlannedJobShareOneNode) {
  const auto dir = shared_directory("allpairs-node");
  if (network().rank() == 0) write_vectors(dir, items, 17);
  barrier();
  VectorApplication app(dir, items);
  const EngineOptions options = options_for(dir);
  node::Node node(node_options(app, options), network());
  cluster::Program& program = node.program();
  program.define("fill", [](cluster::OperationContext& op) {
    for (std::uint64_t& word : op.chunk_as<std::uint64_t>(0))
      word = op.args<std::uint64_t>();
  });
  program.define("add", [](cluster::OperationContext& op) {
    auto out = op.chunk_as<std::uint64_t>(0);
    const auto in = op.chunk_as<std::uint64_t>(1);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] += in[i];
  });
  EngineReport report;
  std::thread all_pairs(
      [&] { report = run_and_check(app, options, PairSpace::all_pairs(items), &node); });
  // A chain of additions that moves a chunk through every rank while the pairs are computed.
  constexpr std::size_t words = 1024;
  std::vector<std::byte> total;
  const int status = program.run([&](cluster::Driver& driver) {
    const cluster::ChunkRef sum = driver.create_chunk("sum", 8 * words, 0);
    driver.run_with(0, "fill", {{sum, runtime::Access::write}}, std::uint64_t{1});
    for (int step = 0; step < 3 * driver.size(); ++step) {
      const int rank = step % driver.size();
      const cluster::ChunkRef part = driver.create_chunk("part", 8 * words, rank);
      driver.run_with(rank, "fill", {{part, runtime::Access::write}},
                      static_cast<std::uint64_t>(step));
      driver.run(rank, "add", {{sum, runtime::Access::read_write}, {part, runtime::Access::read}});
    }
    total = driver.fetch(sum);
  });
  all_pairs.join();
  EXPECT_EQ(status, 0);
  if (network().rank() == 0) {
    EXPECT_EQ(report.pairs_computed, std::uint64_t{items} * (items - 1) / 2);
    const std::uint64_t steps = 3 * static_cast<std::uint64_t>(network().size());
    ASSERT_EQ(total.size(), 8 * words);
    const auto* sums = reinterpret_cast<const std::uint64_t*>(total.data());
    for (std::size_t i = 0; i < words; ++i)
      ASSERT_EQ(sums[i], 1 + steps * (steps - 1) / 2) << "word " << i;
  }
  barrier();
}

// Random runs (item count, leaf, caches, hops, jobs, stealing): every result matches the direct
// computation. The seed is fixed, so every rank draws the same runs.
TEST(EngineStress, RandomRunsMatchTheDirectComputation) {
  std::mt19937 random(2026);
  const auto pick = [&random](unsigned low, unsigned high) {
    return std::uniform_int_distribution<unsigned>(low, high)(random);
  };
  for (int round = 0; round < 6; ++round) {
    const ItemIndex count = pick(2, 40);
    const auto dir = shared_directory("allpairs-stress");
    if (network().rank() == 0) write_vectors(dir, count, 100 + static_cast<unsigned>(round));
    barrier();
    VectorApplication app(dir, count);
    EngineOptions options = options_for(dir);
    options.leaf = pick(1, 8);
    options.jobs_per_device = pick(1, 16);
    options.cache.device_bytes = 0;
    options.cache.device_slots = pick(2, 12);
    options.cache.host_slots = pick(0, 1) == 0 ? 0 : pick(2, 12);
    options.cache.hops = pick(1, 4);
    options.cache.distributed = pick(0, 3) != 0;
    options.cache_aware_stealing = pick(0, 1) == 1;
    SCOPED_TRACE(::testing::Message()
                 << "round " << round << ": " << count << " items, leaf " << options.leaf
                 << ", jobs " << options.jobs_per_device << ", device slots "
                 << options.cache.device_slots << ", host slots " << options.cache.host_slots
                 << ", hops " << options.cache.hops << ", distributed " << options.cache.distributed
                 << ", cache-aware " << options.cache_aware_stealing);
    run_and_check(app, options, PairSpace::all_pairs(count));
  }
}

// Cache-aware stealing: a thief that holds a block's items takes that block, not the largest
// (one rank's two workers; the pool sends no message, so each rank runs it alone).
TEST(CacheAwareStealing, AThiefTakesTheBlockWhoseItemsItHolds) {
  const PairSpace space = PairSpace::all_pairs(64);
  const PairBlock largest{0, 16, 16, 32};  // 256 pairs
  const PairBlock held{32, 40, 48, 64};    // 128 pairs: half the largest, items 32..39, 48..63
  const PairBlock small{40, 44, 44, 48};   // 16 pairs: too small to prefer
  const auto stolen_by_thief = [&](bool cache_aware, const std::vector<ItemIndex>& items_held) {
    cluster::WorkStealing pool(network(), 2, space.pairs(), cluster::kinds::user_kinds + 40);
    if (cache_aware) {
      pool.set_affinity(cluster::StealAffinity{
          [&] { return HeldItems(items_held).encode(); },
          [](const std::string& holdings, const cluster::StealableWork& work) {
            return HeldItems::decode(holdings).share_of(PairBlock::decode(work.payload));
          }});
    }
    for (const PairBlock& block : {largest, held, small})
      pool.push(0, cluster::StealableWork{block.pairs(space), block.encode()});
    const auto work = pool.take(1);  // worker 1 has nothing: it steals from worker 0
    return work ? PairBlock::decode(work->payload) : PairBlock{};
  };
  std::vector<ItemIndex> block_items;
  for (ItemIndex i = 32; i < 40; ++i)
    block_items.push_back(i);
  for (ItemIndex i = 48; i < 64; ++i)
    block_items.push_back(i);
  EXPECT_EQ(stolen_by_thief(true, block_items), held);
  EXPECT_EQ(stolen_by_thief(false, block_items), largest) << "without it: the largest";
  EXPECT_EQ(stolen_by_thief(true, {}), largest) << "holding nothing: the largest";
  EXPECT_EQ(stolen_by_thief(true, {40, 41, 42, 43, 44, 45, 46, 47}), largest)
      << "a block under a quarter of the largest is not preferred";
  barrier();
}

TEST(Engine, SmallHostCacheLoadsItemsAgain) {
  if (network().size() > 1) GTEST_SKIP() << "single-process figure";
  const auto dir = shared_directory("allpairs-reload");
  write_vectors(dir, items, 3);
  VectorApplication app(dir, items);
  EngineOptions options = options_for(dir);
  options.cache.host_slots = 4;
  const EngineReport report = run_and_check(app, options, PairSpace::all_pairs(items));
  EXPECT_GT(report.loads, std::uint64_t{items});
  EXPECT_GT(report.loads_per_item(), 1.0);
}

TEST(Engine, TwoSetsAndAPairFilter) {
  const auto dir = shared_directory("allpairs-cross");
  if (network().rank() == 0) write_vectors(dir, items, 11);
  barrier();
  VectorApplication app(dir, items);
  app.filter([](ItemIndex a, ItemIndex b) { return (a + b) % 3 != 0; });
  EngineOptions options = options_for(dir);
  options.pairs = PairSpace::cross(10, 14);
  const EngineReport report = run_and_check(app, options, options.pairs);
  if (network().rank() == 0) {
    EXPECT_EQ(report.pairs_total, 140u);
    EXPECT_GT(report.pairs_skipped, 0u);
  }
}

TEST(Engine, ResultsEqualTheSequentialRunByteForByte) {
  const auto dir = shared_directory("allpairs-sequential");
  if (network().rank() == 0) write_vectors(dir, items, 13);
  barrier();
  VectorApplication app(dir, items);
  EngineOptions options = options_for(dir);
  options.cache.host_slots = 5;
  run_all_pairs(app, options, network());
  if (network().rank() == 0) {
    auto cpu = device::make_cpu_device(device::default_block_runner());
    const auto sequential = run_sequentially(app, *cpu);
    const RawResults engine = read_raw_results(options.output);
    ASSERT_EQ(engine.pairs.size(), sequential.size());
    for (std::size_t k = 0; k < sequential.size(); ++k) {
      EXPECT_EQ(engine.pairs[k], std::pair(sequential[k].left, sequential[k].right));
      EXPECT_EQ(std::memcmp(engine.values.data() + k * sizeof(Dot), sequential[k].result.data(),
                            sizeof(Dot)),
                0);
    }
  }
  barrier();
}

TEST(Engine, ResumingAnInterruptedRunGivesTheSameResultsFile) {
  if (network().size() > 1) GTEST_SKIP() << "a failing rank ends the whole job";
  const auto dir = shared_directory("allpairs-resume");
  write_vectors(dir, items, 5);
  EngineOptions options = options_for(dir);
  options.jobs_per_device = 2;

  VectorApplication clean(dir, items);
  options.output = dir / "clean.bin";
  run_all_pairs(clean, options, network());

  VectorApplication interrupted(dir, items);
  interrupted.fail_at(20, 23);
  options.output = dir / "resumed.bin";
  EXPECT_THROW(run_all_pairs(interrupted, options, network()), Error);
  EXPECT_FALSE(std::filesystem::exists(options.output)) << "no results file for a failed run";
  ASSERT_TRUE(std::filesystem::exists(ResultsJournal::journal_path(options.output)));

  VectorApplication again(dir, items);
  EXPECT_THROW(run_all_pairs(again, options, network()), Error) << "a journal needs --resume";
  options.resume = true;
  const EngineReport report = run_all_pairs(again, options, network());
  EXPECT_GT(report.pairs_resumed, 0u);
  EXPECT_LT(report.pairs_computed, report.pairs_total);

  EXPECT_EQ(file_bytes(dir / "clean.bin"), file_bytes(options.output));
}

TEST(Engine, ABadFileStopsTheRunWithItsName) {
  if (network().size() > 1) GTEST_SKIP() << "a failing rank ends the whole job";
  const auto dir = shared_directory("allpairs-bad");
  write_vectors(dir, 8, 2);
  std::ofstream(vector_file(dir, 5), std::ios::binary) << "abcde";  // not whole floats
  VectorApplication app(dir, 8);
  EngineOptions options = options_for(dir);
  try {
    run_all_pairs(app, options, network());
    FAIL() << "the run should fail";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("vector_5.f32"), std::string::npos) << error.what();
  }
}

TEST(Engine, ABadFileIsSkippedWhenAsked) {
  if (network().size() > 1) GTEST_SKIP() << "counts are checked on one process";
  const auto dir = shared_directory("allpairs-skip");
  write_vectors(dir, 8, 2);
  std::ofstream(vector_file(dir, 5), std::ios::binary) << "abcde";
  VectorApplication app(dir, 8);
  EngineOptions options = options_for(dir);
  options.bad_input = BadInput::skip;
  const EngineReport report = run_all_pairs(app, options, network());
  EXPECT_EQ(report.items_skipped, 1u);
  EXPECT_EQ(report.pairs_skipped, 7u);
  EXPECT_EQ(report.pairs_computed, 21u);
  EXPECT_EQ(read_results<Dot>(options.output).size(), 21u);
}

}  // namespace
}  // namespace strata::allpairs::testing
