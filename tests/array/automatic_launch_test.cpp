// Automatic distributions in a program on 1, 2 and 4 ranks: with one device's memory held by a
// large array (on the last rank: its load reaches the driver in its progress reports), a new
// array's chunks are placed elsewhere, and a launch under automatic data and work distributions
// gives the reference results.

#include <gtest/gtest.h>

#include <vector>

#include "array_launch_support.hpp"

namespace strata::array::testing {
namespace {

// Everything on `place`: one chunk, or one superblock.
Distribution all_on(Place place) {
  return Distribution::custom("all on one place", [place](const Shape& shape, const Topology&) {
    return std::vector<ChunkPlacement>{{Region::whole(shape), place}};
  });
}
WorkDistribution all_work_on(Place place) {
  return WorkDistribution::custom(
      "all on one place", [place](const std::array<std::uint64_t, 3>& blocks, const Topology&) {
        SuperblockPlacement all;
        for (std::size_t d = 0; d < 3; ++d)
          all.blocks.upper[d] = blocks[d];
        all.place = place;
        return std::vector<SuperblockPlacement>{all};
      });
}

TEST(AutomaticLaunch, NewChunksAvoidADeviceWhoseMemoryIsHeldAndResultsMatch) {
  Arrays arrays(*the_node, *the_driver);
  const std::vector<Place> places = arrays.topology().places();
  if (places.size() < 2) GTEST_SKIP() << "a single device: no other place to choose";
  const ArrayKernel scale = scale_kernel();
  // 12 MiB held in the last place's device memory (of 16 MiB): a kernel there writes it, and
  // its copy stays there.
  const Place full = places.back();
  constexpr std::uint64_t ballast_n = 3ull << 20;
  Array ballast = arrays.create("ballast", device::ElementType::f32, {ballast_n}, all_on(full));
  arrays.launch(scale, Grid{{ballast_n}, {1024}}, all_work_on(full),
                {Argument::value<std::int32_t>(static_cast<std::int32_t>(ballast_n)),
                 Argument::value(1.0f), ballast});
  arrays.synchronize();

  // The driver sees every place's load, the full one's with the least free memory.
  const Topology& topology = arrays.topology();
  const auto held = topology.load(full);
  ASSERT_TRUE(held.has_value()) << "no load reported for rank " << full.rank;
  EXPECT_LE(held->free_bytes, 4ull << 20);
  for (const Place& place : places) {
    const auto load = topology.load(place);
    ASSERT_TRUE(load.has_value()) << "rank " << place.rank << " device " << place.device;
    EXPECT_EQ(load->queued, 0u) << "rank " << place.rank << " device " << place.device;
    if (!(place == full)) {
      ASSERT_GT(load->free_bytes, held->free_bytes + (1ull << 20))
          << "rank " << place.rank << " device " << place.device;
    }
  }

  // 1 MiB in 8 chunks: none goes to the full place (how they spread over the others depends on
  // what earlier tests left there; the unit tests plant that).
  constexpr std::uint64_t n = 1ull << 18;
  std::vector<float> x(n);
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 17);
  Array dx = arrays.from_host<float>("x", {n}, Distribution::automatic({n / 8}), x);
  ASSERT_EQ(dx.chunks().size(), 8u);
  for (const ArrayChunk& chunk : dx.chunks())
    EXPECT_FALSE(chunk.placement.place == full) << chunk.placement.region.describe();

  // Launches under automatic work distributions see each other's writes, like any others.
  for (int round = 0; round < 2; ++round) {
    arrays.launch(
        scale, Grid{{n}, {256}}, WorkDistribution::automatic({64}),
        {Argument::value<std::int32_t>(static_cast<std::int32_t>(n)), Argument::value(0.5f), dx});
    for (std::uint64_t i = 0; i < n; ++i)
      x[i] = 0.5f * x[i] + static_cast<float>(i);
  }
  EXPECT_EQ(arrays.read_as<float>(dx), x);
  arrays.destroy(dx);
  arrays.destroy(ballast);
  arrays.synchronize();
}

}  // namespace
}  // namespace strata::array::testing
