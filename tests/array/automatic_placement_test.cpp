// Automatic distributions over a synthetic topology with loads: chunks go where device memory is
// free, superblocks where little work is queued; what one call placed counts, so equal places
// share; unknown loads count as equal; the existing distributions ignore the loads.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "strata/array/distribution.hpp"
#include "strata/array/work_distribution.hpp"
#include "strata/base/units.hpp"

namespace strata::array {
namespace {

// Two ranks of two devices with the given loads (rank by rank).
Topology two_loaded_ranks_of_two(std::vector<PlaceLoad> loads) {
  Topology topology{{2, 2}};
  topology.loads = {{loads[0], loads[1]}, {loads[2], loads[3]}};
  return topology;
}

std::map<std::pair<int, std::uint32_t>, int> count_by_place(
    const std::vector<ChunkPlacement>& chunks) {
  std::map<std::pair<int, std::uint32_t>, int> count;
  for (const ChunkPlacement& chunk : chunks)
    ++count[{chunk.place.rank, chunk.place.device}];
  return count;
}

TEST(AutomaticDistribution, ThePlaceWithTheMostFreeMemoryGetsTheChunks) {
  // 4 chunks of 1 MiB (float elements); rank 1 device 0 has 10 MiB more free than any other.
  const Topology topology =
      two_loaded_ranks_of_two({{2 * MiB, 0}, {3 * MiB, 0}, {13 * MiB, 5}, {1 * MiB, 0}});
  const Shape shape = Shape::of(std::vector<std::uint64_t>{1024, 1024});
  const auto chunks =
      Distribution::automatic({256, 1024}).chunks(shape, topology, "'a'", sizeof(float));
  ASSERT_EQ(chunks.size(), 4u);
  for (const ChunkPlacement& chunk : chunks)
    EXPECT_EQ(chunk.place, (Place{1, 0})) << chunk.region.describe();
  check_covers(chunks, shape, "'a'", "automatic");
}

TEST(AutomaticDistribution, AChunkTakesItsBytesFromItsPlaceSoOneCallSpreads) {
  // Rank 0 device 1 has 2.5 MiB more free: it takes chunks until it is no freer than the others.
  const Topology topology =
      two_loaded_ranks_of_two({{4 * MiB, 0}, {6 * MiB + MiB / 2, 0}, {4 * MiB, 0}, {4 * MiB, 0}});
  const Shape shape = Shape::of(std::vector<std::uint64_t>{6 * 256 * 1024});  // 6 MiB of floats
  const auto chunks =
      Distribution::automatic({256 * 1024}).chunks(shape, topology, "'b'", sizeof(float));
  ASSERT_EQ(chunks.size(), 6u);
  // 6.5 -> 5.5 -> 4.5 -> 3.5 MiB: three chunks go to (0, 1) first; then the others at 4 MiB,
  // one each in place order.
  EXPECT_EQ(chunks[0].place, (Place{0, 1}));
  EXPECT_EQ(chunks[1].place, (Place{0, 1}));
  EXPECT_EQ(chunks[2].place, (Place{0, 1}));
  EXPECT_EQ(chunks[3].place, (Place{0, 0}));
  EXPECT_EQ(chunks[4].place, (Place{1, 0}));
  EXPECT_EQ(chunks[5].place, (Place{1, 1}));
}

TEST(AutomaticDistribution, TiesSpreadOverThePlacesAndQueuedWorkBreaksThem) {
  const Shape shape = Shape::of(std::vector<std::uint64_t>{8, 8});
  // Equal free memory: every place gets two of the eight tiles.
  const Topology equal = two_loaded_ranks_of_two({{MiB, 0}, {MiB, 0}, {MiB, 0}, {MiB, 0}});
  for (const auto& [place, n] : count_by_place(Distribution::automatic({2, 8}).chunks(
           Shape::of(std::vector<std::uint64_t>{16, 8}), equal, "'c'", 4)))
    EXPECT_EQ(n, 2) << place.first << "/" << place.second;
  // No loads known (a synthetic topology): the same.
  const auto unknown =
      Distribution::automatic({2, 2}).chunks(shape, Topology{{2, 2}}, "'c'", sizeof(double));
  ASSERT_EQ(unknown.size(), 16u);
  for (const auto& [place, n] : count_by_place(unknown))
    EXPECT_EQ(n, 4) << place.first << "/" << place.second;
  // Equal free memory, rank 0's devices busy: the first tile goes to the idle ones.
  const Topology busy = two_loaded_ranks_of_two({{MiB, 3}, {MiB, 3}, {MiB, 0}, {MiB, 0}});
  const auto first = Distribution::automatic({8, 8}).chunks(shape, busy, "'c'", 4);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].place, (Place{1, 0}));
}

TEST(AutomaticDistribution, APlaceWhoseLoadIsUnknownCountsAsTheFreestIdleOne) {
  Topology topology{{1, 1}};
  topology.loads = {{PlaceLoad{4 * MiB, 2}}};  // rank 1 reported nothing yet
  const auto chunks = Distribution::automatic({4}).chunks(Shape::of(std::vector<std::uint64_t>{8}),
                                                          topology, "'d'", 4);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].place, (Place{1, 0}));  // as free, and nothing queued
  EXPECT_EQ(chunks[1].place, (Place{0, 0}));  // (1, 0) has that chunk's bytes less free now
}

TEST(AutomaticDistribution, TheOtherDistributionsIgnoreTheLoads) {
  const Topology topology = two_loaded_ranks_of_two({{0, 9}, {0, 9}, {0, 9}, {16 * MiB, 0}});
  const Shape shape = Shape::of(std::vector<std::uint64_t>{8});
  const auto tiles = Distribution::tiles({2}).chunks(shape, topology);
  const auto plain = Distribution::tiles({2}).chunks(shape, Topology{{2, 2}});
  ASSERT_EQ(tiles.size(), plain.size());
  for (std::size_t i = 0; i < tiles.size(); ++i)
    EXPECT_EQ(tiles[i].place, plain[i].place);
  EXPECT_EQ(Distribution::automatic({2}).describe(), "tiles of 2, placed where memory is free");
  EXPECT_EQ(
      Distribution::round_robin({2}).assigned(Distribution::Assign::most_free_memory).describe(),
      "tiles of 2, placed where memory is free");
}

TEST(AutomaticWorkDistribution, SuperblocksGoWhereTheLeastWorkIsQueuedCountingTheirOwn) {
  // Queued: 4, 0, 1, 0; rank 1 device 1 has more free memory than rank 0 device 1.
  const Topology topology =
      two_loaded_ranks_of_two({{8 * MiB, 4}, {MiB, 0}, {8 * MiB, 1}, {2 * MiB, 0}});
  const auto superblocks =
      WorkDistribution::automatic({1}).superblocks({6, 1, 1}, 1, topology, "k");
  ASSERT_EQ(superblocks.size(), 6u);
  // 0 and 0 queued: the freer (1, 1) first, then (0, 1); then all but (0, 0) have one: (1, 0)
  // is freest; then (1, 1), (0, 1) at two ... and (0, 0) with four gets none of six.
  const std::vector<Place> expected{{1, 1}, {0, 1}, {1, 0}, {1, 1}, {0, 1}, {1, 0}};
  for (std::size_t i = 0; i < superblocks.size(); ++i) {
    EXPECT_EQ(superblocks[i].place, expected[i]) << "superblock " << i;
    EXPECT_EQ(superblocks[i].blocks.lower[0], i);
    EXPECT_EQ(superblocks[i].blocks.upper[0], i + 1);
  }
  EXPECT_EQ(WorkDistribution::automatic({2, 2}).describe(),
            "superblocks of 2x2 blocks, placed where little work is queued");
}

TEST(AutomaticWorkDistribution, WithoutLoadsSuperblocksSpreadEvenly) {
  const auto superblocks =
      WorkDistribution::automatic({1, 1}).superblocks({4, 2, 1}, 2, Topology{{2, 2}}, "k");
  ASSERT_EQ(superblocks.size(), 8u);
  std::map<std::pair<int, std::uint32_t>, int> count;
  for (const SuperblockPlacement& superblock : superblocks)
    ++count[{superblock.place.rank, superblock.place.device}];
  ASSERT_EQ(count.size(), 4u);
  for (const auto& [place, n] : count)
    EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace strata::array
