// Cross-rank work stealing: every unit of a round that starts on rank 0 is done exactly once,
// and other ranks get their work by stealing it.

#include <gtest/gtest.h>

#include <cstring>

#include "cluster_test_support.hpp"

namespace strata::cluster::testing {
namespace {

TEST(WorkStealing, EveryUnitIsDoneExactlyOnceAcrossRanks) {
  Driver& driver = *the_driver;
  std::vector<ChunkRef> results;
  for (int rank = 0; rank < driver.size(); ++rank) {
    results.push_back(driver.create_chunk(std::string("steal result ").append(std::to_string(rank)),
                                          steal_result_bytes, rank));
    driver.run(rank, "steal_round", {{results.back(), runtime::Access::write}});
  }
  std::vector<int> done(steal_units, 0);
  std::uint64_t remote_steals = 0;
  for (int rank = 0; rank < driver.size(); ++rank) {
    const std::vector<std::byte> bytes = driver.fetch(results[rank]);
    ASSERT_EQ(bytes.size(), steal_result_bytes);
    std::uint64_t units = 0;
    for (std::uint64_t unit = 0; unit < steal_units; ++unit) {
      const int count = std::to_integer<int>(bytes[unit]);
      done[unit] += count;
      units += static_cast<std::uint64_t>(count);
    }
    std::uint64_t stolen = 0;
    std::memcpy(&stolen, bytes.data() + steal_units, sizeof stolen);
    remote_steals += stolen;
    RecordProperty("units_on_rank_" + std::to_string(rank), static_cast<int>(units));
  }
  for (std::uint64_t unit = 0; unit < steal_units; ++unit) {
    ASSERT_EQ(done[unit], 1) << "unit " << unit;
  }
  if (driver.size() > 1) {
    EXPECT_GT(remote_steals, 0u) << "all work started on rank 0; nobody stole any";
  }
}

TEST(RemoteChunks, EveryRankPullsEveryOtherRanksOfferedChunk) {
  Driver& driver = *the_driver;
  for (int rank = 0; rank < driver.size(); ++rank)
    driver.run(rank, "remote_offer", {});
  driver.wait_all();
  std::vector<ChunkRef> checks;
  for (int rank = 0; rank < driver.size(); ++rank) {
    checks.push_back(driver.create_chunk(std::string("pulled by ").append(std::to_string(rank)),
                                         8 * driver.size(), rank));
    driver.run(rank, "remote_pull", {{checks.back(), runtime::Access::write}});
  }
  for (int rank = 0; rank < driver.size(); ++rank) {
    const std::vector<std::uint64_t> checked = as_words(driver.fetch(checks[rank]));
    for (int holder = 0; holder < driver.size(); ++holder) {
      EXPECT_EQ(checked[holder], holder == rank ? 0u : 1u)
          << "rank " << rank << " pulling from rank " << holder
          << " (2: wrong bytes, 3: a key nobody offers did not fail)";
    }
  }
}

}  // namespace
}  // namespace strata::cluster::testing
