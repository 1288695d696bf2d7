// Distributions: chunks cover the array (exactly once unless halos or replicas overlap), lie on
// the topology's devices, are spread blocked or round-robin; bad ones are errors naming the array.

#include "strata/array/distribution.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "strata/base/error.hpp"

namespace strata::array {
namespace {

Shape shape_of(std::vector<std::uint64_t> extents) {
  return Shape::of(extents);
}

// How many chunks hold each element, row-major.
std::vector<int> coverage(const std::vector<ChunkPlacement>& chunks, const Shape& shape) {
  std::vector<int> count(shape.elements(), 0);
  for (const ChunkPlacement& chunk : chunks) {
    const Region& r = chunk.region;
    for (std::uint64_t i = r.lo[0]; i < r.hi[0]; ++i)
      for (std::uint64_t j = r.lo[1]; j < r.hi[1]; ++j)
        for (std::uint64_t k = r.lo[2]; k < r.hi[2]; ++k)
          ++count[(i * shape.extent[1] + j) * shape.extent[2] + k];
  }
  return count;
}

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

const Topology two_ranks_of_two{{2, 2}};

TEST(Distribution, RowBlocksCutDimensionZeroAndSpreadInContiguousGroups) {
  const Shape shape = shape_of({10, 4});
  const auto chunks = Distribution::row_blocks(3).chunks(shape, two_ranks_of_two);
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0].region.describe(), "[0:3, 0:4]");
  EXPECT_EQ(chunks[3].region.describe(), "[9:10, 0:4]");  // the last one shorter
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].place.rank, static_cast<int>(i / 2));
    EXPECT_EQ(chunks[i].place.device, i % 2);
  }
  for (int n : coverage(chunks, shape))
    EXPECT_EQ(n, 1);
}

TEST(Distribution, ColumnBlocksTilesAndRoundRobin) {
  const Shape shape = shape_of({4, 9});
  const auto columns = Distribution::column_blocks(4).chunks(shape, Topology{{1}});
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[2].region.describe(), "[0:4, 8:9]");
  const auto tiles = Distribution::tiles({2, 3}).chunks(shape, two_ranks_of_two);
  EXPECT_EQ(tiles.size(), 6u);
  for (int n : coverage(tiles, shape))
    EXPECT_EQ(n, 1);
  const auto dealt = Distribution::round_robin({2, 3}).chunks(shape, two_ranks_of_two);
  ASSERT_EQ(dealt.size(), 6u);
  const std::vector<Place> places = two_ranks_of_two.places();
  for (std::size_t i = 0; i < dealt.size(); ++i)
    EXPECT_EQ(dealt[i].place, places[i % places.size()]);
  EXPECT_NE(Distribution::tiles({2})
                .assigned(Distribution::Assign::round_robin)
                .describe()
                .find("round-robin"),
            std::string::npos);
}

TEST(Distribution, StencilTilesOverlapByTheirHalos) {
  const Shape shape = shape_of({8, 8});
  const auto chunks = Distribution::stencil({4, 4}, {1, 1}).chunks(shape, two_ranks_of_two);
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0].region.describe(), "[0:5, 0:5]");  // clamped at the array's edge
  EXPECT_EQ(chunks[3].region.describe(), "[3:8, 3:8]");
  const std::vector<int> count = coverage(chunks, shape);
  EXPECT_EQ(count[0], 1);          // a corner: one tile
  EXPECT_EQ(count[3 * 8 + 3], 4);  // the middle: in every tile's halo or body
  EXPECT_EQ(count[0 * 8 + 4], 2);  // an edge between two tiles
}

TEST(Distribution, ReplicatedPutsAWholeCopyOnEveryDevice) {
  const Shape shape = shape_of({5, 5, 5});
  const auto chunks = Distribution::replicated().chunks(shape, two_ranks_of_two);
  ASSERT_EQ(chunks.size(), 4u);
  for (const ChunkPlacement& chunk : chunks)
    EXPECT_EQ(chunk.region, Region::whole(shape));
}

TEST(Distribution, CustomChunksAreCheckedAndHolesNamed) {
  const Shape shape = shape_of({6});
  const auto halves = Distribution::custom("halves", [](const Shape& s, const Topology&) {
    const std::uint64_t half = s.extent[0] / 2;
    return std::vector<ChunkPlacement>{
        {Region::of(std::array<std::uint64_t, 1>{0}, std::array<std::uint64_t, 1>{half}), {0, 0}},
        {Region::of(std::array<std::uint64_t, 1>{half}, std::array<std::uint64_t, 1>{s.extent[0]}),
         {1, 1}}};
  });
  EXPECT_EQ(halves.chunks(shape, two_ranks_of_two).size(), 2u);

  const auto holey = Distribution::custom("holey", [](const Shape&, const Topology&) {
    return std::vector<ChunkPlacement>{
        {Region::of(std::array<std::uint64_t, 1>{0}, std::array<std::uint64_t, 1>{2}), {0, 0}},
        {Region::of(std::array<std::uint64_t, 1>{4}, std::array<std::uint64_t, 1>{6}), {0, 1}}};
  });
  const std::string hole = message_of([&] { holey.chunks(shape, two_ranks_of_two, "'A'"); });
  EXPECT_NE(hole.find("custom 'holey' of 'A' (6) leaves elements [2:4] in no chunk"),
            std::string::npos)
      << hole;

  const auto outside = Distribution::custom("outside", [](const Shape&, const Topology&) {
    return std::vector<ChunkPlacement>{
        {Region::of(std::array<std::uint64_t, 1>{0}, std::array<std::uint64_t, 1>{7}), {0, 0}}};
  });
  EXPECT_NE(message_of([&] { outside.chunks(shape, two_ranks_of_two, "'A'"); }).find("[0:7]"),
            std::string::npos);
  const auto nowhere = Distribution::custom("nowhere", [](const Shape& s, const Topology&) {
    return std::vector<ChunkPlacement>{{Region::whole(s), {2, 0}}};
  });
  EXPECT_NE(message_of([&] { nowhere.chunks(shape, two_ranks_of_two); }).find("rank 2"),
            std::string::npos);
}

TEST(Distribution, ImpossibleCutsAreErrorsNamingTheArray) {
  EXPECT_NE(message_of([] {
              Distribution::column_blocks(2).chunks(Shape::of(std::array<std::uint64_t, 1>{8}),
                                                    Topology{{1}}, "'v'");
            }).find("'v' (8) cannot have column blocks of 2"),
            std::string::npos);
  EXPECT_THROW(Distribution::row_blocks(0), Error);
  EXPECT_THROW(Distribution::tiles({2, 0}), Error);
  EXPECT_THROW(Distribution::stencil({2, 2}, {1}), Error);
  EXPECT_THROW(
      Distribution::tiles({2, 2}).chunks(Shape::of(std::array<std::uint64_t, 1>{8}), Topology{{1}}),
      Error);
  EXPECT_THROW(Distribution::replicated().chunks(Shape::of(std::array<std::uint64_t, 1>{8}),
                                                 Topology{{0, 0}}),
               Error);
}

// Random shapes, tiles and topologies: tiles cover each element once, stencils at least once and
// every chunk holds its tile plus at most the halo; places exist; blocked spreading never goes
// back to an earlier place.
TEST(DistributionStress, RandomCutsCoverTheArrayAsTheyShould) {
  std::mt19937_64 random(20261126);
  for (int round = 0; round < 300; ++round) {
    const std::uint32_t dims = 1 + static_cast<std::uint32_t>(random() % 3);
    std::vector<std::uint64_t> extents, tile, halo;
    for (std::uint32_t d = 0; d < dims; ++d) {
      extents.push_back(1 + random() % 12);
      tile.push_back(1 + random() % 6);
      halo.push_back(random() % 3);
    }
    const Shape shape = Shape::of(extents);
    Topology topology;
    for (std::uint64_t r = 0, ranks = 1 + random() % 4; r < ranks; ++r)
      topology.devices_per_rank.push_back(static_cast<std::uint32_t>(1 + random() % 3));
    const bool stencil = random() % 2 == 0;
    const Distribution distribution =
        stencil ? Distribution::stencil(tile, halo) : Distribution::tiles(tile);
    const auto chunks = distribution.chunks(shape, topology);
    const std::vector<int> count = coverage(chunks, shape);
    for (int n : count) {
      if (stencil) {
        EXPECT_GE(n, 1);
      } else {
        EXPECT_EQ(n, 1);
      }
    }
    check_covers(chunks, shape, "random", distribution.describe());
    const std::vector<Place> places = topology.places();
    std::size_t last = 0;
    for (const ChunkPlacement& chunk : chunks) {
      EXPECT_TRUE(topology.contains(chunk.place));
      const std::size_t slot = static_cast<std::size_t>(
          std::find(places.begin(), places.end(), chunk.place) - places.begin());
      EXPECT_GE(slot, last);
      last = slot;
      for (std::uint32_t d = 0; d < dims; ++d) {
        EXPECT_LE(chunk.region.hi[d] - chunk.region.lo[d], tile[d] + 2 * (stencil ? halo[d] : 0));
      }
    }
  }
}

}  // namespace
}  // namespace strata::array
