// Automatic distributions in a program on 1, 2 and 4 ranks: with one device's memory held by a
// large array (on the last rank: its load reaches the driver in its progress reports), a new
// array's chunks are placed elsewhere; with work queued on the driver's CPU device, new
// superblocks go elsewhere; launches under automatic data and work distributions give the
// reference results.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
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

TEST(AutomaticLaunch, SuperblocksAvoidADeviceWithQueuedWork) {
  Arrays arrays(*the_node, *the_driver);
  const std::vector<Place> places = arrays.topology().places();
  if (places.size() < 2) GTEST_SKIP() << "a single device: no other place to choose";
  if (the_node->devices().front()->info().backend != device::BackendKind::cpu)
    GTEST_SKIP() << "the holding kernel runs on a CPU device";
  // Eight launches queued on the driver's CPU device, held there until released.
  const Place busy{0, 0};
  Array held = arrays.create("held", device::ElementType::f32, {1}, all_on(busy));
  hold_released = false;
  constexpr std::uint64_t holds = 8;
  for (std::uint64_t i = 0; i < holds; ++i)
    arrays.launch(hold_kernel(), Grid{{1}, {1}}, all_work_on(busy), {held});
  // The driver reads its own devices' loads at once: the holds count once submitted.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (arrays.topology().load(busy)->queued < holds && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(arrays.topology().load(busy)->queued, holds);

  // Four superblocks, none on the busy device: each other place has fewer queued, counting them.
  constexpr std::uint64_t n = 4096;
  const WorkDistribution work = WorkDistribution::automatic({16});
  const auto planned = work.superblocks({n / 64, 1, 1}, 1, arrays.topology(), "scale");
  ASSERT_EQ(planned.size(), 4u);
  for (const SuperblockPlacement& superblock : planned)
    EXPECT_FALSE(superblock.place == busy) << "blocks from " << superblock.blocks.lower[0];
  std::vector<float> x(n);
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 11);
  Array dx = arrays.from_host<float>("x", {n}, Distribution::automatic({n / 4}), x);
  arrays.launch(
      scale_kernel(), Grid{{n}, {64}}, work,
      {Argument::value<std::int32_t>(static_cast<std::int32_t>(n)), Argument::value(2.0f), dx});
  hold_released = true;
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = 2.0f * x[i] + static_cast<float>(i);
  EXPECT_EQ(arrays.read_as<float>(dx), x);
  EXPECT_EQ(arrays.read_as<float>(held), std::vector<float>{static_cast<float>(holds)});
  arrays.synchronize();
  EXPECT_EQ(arrays.topology().load(busy)->queued, 0u);
  arrays.destroy(dx);
  arrays.destroy(held);
}

}  // namespace
}  // namespace strata::array::testing
