// Distributed kernel launches on 1, 2 and 4 ranks (CPU and, where PoCL is installed, OpenCL
// devices on every rank): results never depend on the data or work distributions — every
// combination is compared with a sequential reference — consecutive launches see each other's
// writes, halos and replicas stay coherent, and bad launches are errors naming kernel and array.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "array_launch_support.hpp"
#include "strata/store/npy.hpp"

namespace strata::array::testing {
namespace {

std::vector<float> stencil_reference(const std::vector<float>& in) {
  const std::size_t n = in.size();
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float left = i >= 1 ? in[i - 1] : 0.0f;
    const float right = i + 1 < n ? in[i + 1] : 0.0f;
    out[i] = (left + in[i] + right) / 3.0f;
  }
  return out;
}

// Device results against a sequential float reference: OpenCL allows single-precision division
// 2.5 ulp from the exact quotient (the stencil's differed on an NVIDIA GPU), so within 1e-6
// relative.
void expect_close(const std::vector<float>& result, const std::vector<float>& expected) {
  ASSERT_EQ(result.size(), expected.size());
  for (std::size_t i = 0; i < result.size(); ++i) {
    ASSERT_NEAR(result[i], expected[i], 1e-6f * std::max(1.0f, std::fabs(expected[i])))
        << "element " << i;
  }
}

std::vector<Distribution> data_distributions_1d(std::uint64_t n) {
  return {Distribution::row_blocks(n / 5 + 1),
          Distribution::stencil({n / 3 + 1}, {1}),
          Distribution::replicated(),
          Distribution::round_robin({n / 7 + 1}),
          Distribution::automatic({n / 6 + 1}),
          Distribution::custom("uneven", [](const Shape& shape, const Topology& topology) {
            // A tenth, then the rest, on the last place and the first.
            const std::vector<Place> places = topology.places();
            const std::uint64_t cut = shape.extent[0] / 10 + 1;
            return std::vector<ChunkPlacement>{
                {Region::of(std::array<std::uint64_t, 1>{0}, std::array<std::uint64_t, 1>{cut}),
                 places.back()},
                {Region::of(std::array<std::uint64_t, 1>{cut},
                            std::array<std::uint64_t, 1>{shape.extent[0]}),
                 places.front()}};
          })};
}

std::vector<WorkDistribution> work_distributions_1d() {
  return {WorkDistribution::tiled({4}), WorkDistribution::round_robin({3}),
          WorkDistribution::even(), WorkDistribution::automatic({5})};
}

TEST(ArrayLaunch, StencilResultsDoNotDependOnDataOrWorkDistributions) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 1000;
  std::vector<float> input(n);
  for (std::uint64_t i = 0; i < n; ++i)
    input[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  const std::vector<float> expected = stencil_reference(input);
  const ArrayKernel kernel = stencil_kernel();
  // Every data distribution of the input with one of the output's and one work distribution
  // in turn (each kernel variant is compiled for the device: the product of all would be slow).
  const std::vector<Distribution> outs{Distribution::row_blocks(n / 4 + 1),
                                       Distribution::stencil({n / 2}, {2})};
  const std::vector<Distribution> ins = data_distributions_1d(n);
  const std::vector<WorkDistribution> works = work_distributions_1d();
  for (std::size_t c = 0; c < ins.size() + 1; ++c) {
    const Distribution& in_distribution = ins[c % ins.size()];
    const Distribution& out_distribution = outs[c % outs.size()];
    {
      {
        const WorkDistribution& work = works[c % works.size()];
        Array in = arrays.from_host<float>("in", {n}, in_distribution, input);
        Array out = arrays.create("out", device::ElementType::f32, {n}, out_distribution);
        arrays.launch(kernel, Grid{{n}, {32}}, work, {Argument::value<std::int32_t>(n), out, in});
        const std::vector<float> result = arrays.read_as<float>(out);
        ASSERT_EQ(result.size(), n);
        for (std::uint64_t i = 0; i < n; ++i) {
          ASSERT_NEAR(result[i], expected[i], 1e-4)
              << "element " << i << ", in: " << in_distribution.describe()
              << ", out: " << out_distribution.describe() << ", work: " << work.describe();
        }
        arrays.destroy(in);
        arrays.destroy(out);
      }
    }
  }
  arrays.synchronize();
  EXPECT_GT(arrays.stats().direct_uses, 0u);
  EXPECT_GT(arrays.stats().assembled_regions, 0u);
}

TEST(ArrayLaunch, MatrixProductUnderTilesRowsAndReplicas) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 48;
  std::vector<float> a(n * n), b(n * n), expected(n * n, 0.0f);
  for (std::uint64_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 7) - 3.0f;
    b[i] = static_cast<float>(i % 5) * 0.5f;
  }
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j)
      for (std::uint64_t k = 0; k < n; ++k)
        expected[i * n + j] += a[i * n + k] * b[k * n + j];
  const ArrayKernel kernel = matmul_kernel();
  const std::vector<Distribution> distributions{
      Distribution::row_blocks(13), Distribution::tiles({16, 24}), Distribution::column_blocks(20),
      Distribution::replicated(), Distribution::automatic({20, 20})};
  const std::vector<WorkDistribution> works{
      WorkDistribution::tiled({2, 1}), WorkDistribution::round_robin({1, 2}),
      WorkDistribution::even(), WorkDistribution::automatic({2, 2})};
  for (std::size_t c = 0; c < distributions.size(); ++c) {
    const Distribution& distribution = distributions[c];
    const WorkDistribution& work = works[c % works.size()];
    Array da = arrays.from_host<float>("A", {n, n}, distribution, a);
    Array db =
        arrays.from_host<float>("B", {n, n}, distributions[(c + 1) % distributions.size()], b);
    Array dc = arrays.create("C", device::ElementType::f32, {n, n}, Distribution::tiles({24, 24}));
    arrays.launch(kernel, Grid{{n, n}, {8, 8}}, work,
                  {Argument::value<std::int32_t>(n), dc, da, db});
    const std::vector<float> result = arrays.read_as<float>(dc);
    for (std::uint64_t i = 0; i < n * n; ++i)
      ASSERT_NEAR(result[i], expected[i], 1e-3)
          << "element " << i << " under " << distribution.describe() << ", " << work.describe();
    // A box of the result, read on its own.
    const Region box =
        Region::of(std::array<std::uint64_t, 2>{5, 30}, std::array<std::uint64_t, 2>{17, 41});
    const std::vector<float> part = arrays.read_as<float>(dc, box);
    ASSERT_EQ(part.size(), 12u * 11u);
    for (std::uint64_t i = 0; i < 12; ++i)
      for (std::uint64_t j = 0; j < 11; ++j)
        ASSERT_EQ(part[i * 11 + j], result[(5 + i) * n + 30 + j]);
    arrays.destroy(da);
    arrays.destroy(db);
    arrays.destroy(dc);
  }
}

TEST(ArrayLaunch, ConsecutiveLaunchesSeeEachOthersWritesAndHalosStayCoherent) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 777;
  std::vector<float> x(n);
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 13);
  // Overlapping chunks: every halo element is held twice and must be updated in both.
  Array dx = arrays.from_host<float>("x", {n}, Distribution::stencil({100}, {3}), x);
  const ArrayKernel kernel = scale_kernel();
  const std::vector<WorkDistribution> works{
      WorkDistribution::tiled({5}), WorkDistribution::round_robin({2}), WorkDistribution::even()};
  for (int round = 0; round < 3; ++round) {
    arrays.launch(kernel, Grid{{n}, {16}}, works[static_cast<std::size_t>(round)],
                  {Argument::value<std::int32_t>(n), Argument::value(0.5f), dx});
    for (std::uint64_t i = 0; i < n; ++i)
      x[i] = 0.5f * x[i] + static_cast<float>(i);
  }
  EXPECT_EQ(arrays.read_as<float>(dx), x);
  // Every chunk's copy holds the same values, halos included: read each chunk's region alone.
  for (const ArrayChunk& chunk : dx.chunks()) {
    const std::vector<float> held = arrays.read_as<float>(dx, chunk.placement.region);
    for (std::uint64_t i = chunk.placement.region.lo[0]; i < chunk.placement.region.hi[0]; ++i)
      ASSERT_EQ(held[i - chunk.placement.region.lo[0]], x[i]) << "element " << i;
  }
  arrays.destroy(dx);
}

// A read region assembled from several chunks is kept for the next launches on its rank, and
// dropped when the array is written there — by a launch or from the host.
TEST(ArrayLaunch, AssembledRegionsAreKeptUntilTheArrayIsWritten) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 600;
  std::vector<float> x(n);
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 17);
  // Row blocks without halos: every superblock's read region x[lo-1:hi+1] spans two chunks.
  Array in = arrays.from_host<float>("in", {n}, Distribution::row_blocks(100), x);
  Array out = arrays.create("out", device::ElementType::f32, {n}, Distribution::row_blocks(100));
  const ArrayKernel stencil = stencil_kernel();
  const auto run_stencil = [&] {
    arrays.launch(stencil, Grid{{n}, {20}}, WorkDistribution::tiled({5}),
                  {Argument::value<std::int32_t>(n), out, in});
    return arrays.read_as<float>(out);
  };
  expect_close(run_stencil(), stencil_reference(x));
  const LaunchStats first = arrays.stats();
  ASSERT_GT(first.assembled_regions, 0u);
  EXPECT_EQ(first.reused_regions, 0u);
  expect_close(run_stencil(), stencil_reference(x));
  const LaunchStats second = arrays.stats();
  EXPECT_EQ(second.assembled_regions, first.assembled_regions);  // nothing assembled again
  EXPECT_EQ(second.reused_regions, first.assembled_regions);
  // A launch writes the input: the kept regions go, the next stencil sees the new values.
  arrays.launch(scale_kernel(), Grid{{n}, {20}}, WorkDistribution::even(),
                {Argument::value<std::int32_t>(n), Argument::value(2.0f), in});
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = 2.0f * x[i] + static_cast<float>(i);
  expect_close(run_stencil(), stencil_reference(x));
  EXPECT_GT(arrays.stats().assembled_regions, second.assembled_regions);
  // So does a write from the host.
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>((i * 5) % 11);
  arrays.write(in, std::as_bytes(std::span<const float>(x)));
  expect_close(run_stencil(), stencil_reference(x));
  arrays.destroy(in);
  arrays.destroy(out);
}

// An array larger than a device (the test's devices hold 16 MiB) is read whole: the gather goes
// through the host instead of trying to hold the whole array on the device of its chunks.
TEST(ArrayLaunch, AnArrayLargerThanADeviceIsReadWhole) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 6u << 20;  // 24 MiB of floats
  Array big = arrays.create("big", device::ElementType::f32, {n}, Distribution::row_blocks(n / 8));
  arrays.fill(big, 2.5f);
  arrays.launch(
      scale_kernel(), Grid{{n}, {256}}, WorkDistribution::tiled({n / 8 / 256}),
      {Argument::value<std::int32_t>(static_cast<std::int32_t>(n)), Argument::value(2.0f), big});
  const std::vector<float> values = arrays.read_as<float>(big);
  ASSERT_EQ(values.size(), n);
  for (std::uint64_t i = 0; i < n; i += 4099)
    ASSERT_EQ(values[i], 5.0f + static_cast<float>(i)) << "element " << i;
  arrays.destroy(big);
}

// reduce(+) and reduce(max) into arrays of another shape than the grid: the superblocks of a
// row of tiles share their reduced region; the result does not depend on the distributions, and
// it replaces what the reduced elements held (elements no thread reaches keep theirs).
TEST(ArrayLaunch, ReductionsDoNotDependOnDataOrWorkDistributions) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t rows = 45;
  constexpr std::uint64_t cols = 70;
  constexpr std::uint64_t used_cols = 61;  // the grid's: sums[61..69] are not reduced
  std::vector<std::int32_t> a(rows * cols);
  for (std::uint64_t i = 0; i < rows * cols; ++i)
    a[i] = static_cast<std::int32_t>((i * 7919) % 1009) - 500;
  std::vector<std::int32_t> sums(cols, -1);
  std::vector<std::int32_t> peaks(rows, std::numeric_limits<std::int32_t>::min());
  for (std::uint64_t j = 0; j < used_cols; ++j)
    sums[j] = 0;
  for (std::uint64_t i = 0; i < rows; ++i) {
    for (std::uint64_t j = 0; j < used_cols; ++j) {
      sums[j] += a[i * cols + j];
      peaks[i] = std::max(peaks[i], a[i * cols + j]);
    }
  }
  const ArrayKernel kernel = column_sums_kernel();
  const std::vector<Distribution> matrices{Distribution::tiles({16, 24}),
                                           Distribution::row_blocks(7), Distribution::replicated()};
  const std::vector<Distribution> vectors{
      Distribution::row_blocks(cols / 3 + 1), Distribution::replicated(),
      Distribution::stencil({20}, {2}), Distribution::round_robin({9})};
  const std::vector<WorkDistribution> works{
      WorkDistribution::tiled({2, 3}), WorkDistribution::round_robin({1, 2}),
      WorkDistribution::even(), WorkDistribution::tiled({8, 1})};
  for (std::size_t c = 0; c < 4; ++c) {
    const WorkDistribution& work = works[c];
    const std::string under = matrices[c % matrices.size()].describe() + ", " +
                              vectors[c].describe() + ", " + work.describe();
    Array da = arrays.from_host<std::int32_t>("A", {rows, cols}, matrices[c % matrices.size()], a);
    Array dsums = arrays.create("sums", device::ElementType::i32, {cols}, vectors[c]);
    Array dpeaks =
        arrays.create("peaks", device::ElementType::i32, {rows}, vectors[(c + 1) % vectors.size()]);
    arrays.fill<std::int32_t>(dsums, -1);  // replaced where reduced, kept elsewhere
    arrays.fill<std::int32_t>(dpeaks, 12345);
    arrays.launch(kernel, Grid{{used_cols, rows}, {4, 4}}, work,
                  {Argument::value<std::int32_t>(rows), Argument::value<std::int32_t>(used_cols),
                   da, dsums, dpeaks});
    EXPECT_EQ(arrays.read_as<std::int32_t>(dsums), sums) << under;
    EXPECT_EQ(arrays.read_as<std::int32_t>(dpeaks), peaks) << under;
    // Every chunk's copy holds the result (replicas and halos included).
    for (const ArrayChunk& chunk : dsums.chunks()) {
      const std::vector<std::int32_t> held =
          arrays.read_as<std::int32_t>(dsums, chunk.placement.region);
      for (std::uint64_t j = chunk.placement.region.lo[0]; j < chunk.placement.region.hi[0]; ++j)
        ASSERT_EQ(held[j - chunk.placement.region.lo[0]], sums[j])
            << "element " << j << ", " << under;
    }
    // A second launch reduces afresh: the same result, not twice it.
    arrays.launch(kernel, Grid{{used_cols, rows}, {4, 4}}, work,
                  {Argument::value<std::int32_t>(rows), Argument::value<std::int32_t>(used_cols),
                   da, dsums, dpeaks});
    EXPECT_EQ(arrays.read_as<std::int32_t>(dsums), sums) << under;
    arrays.destroy(da);
    arrays.destroy(dsums);
    arrays.destroy(dpeaks);
  }
  EXPECT_GT(arrays.stats().reduce_partials, 0u);
}

// One superblock reducing all of an array whose chunk on its device is exactly that region: the
// chunk is reduced into in place (no partial), and the other places' replicas get the result.
TEST(ArrayLaunch, AChunkOfTheSuperblocksDeviceIsReducedInPlaceAndTheReplicasFollow) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t rows = 40, cols = 24;
  std::vector<std::int32_t> a(rows * cols);
  for (std::uint64_t i = 0; i < rows * cols; ++i)
    a[i] = static_cast<std::int32_t>((i * 613) % 211) - 100;
  std::vector<std::int32_t> sums(cols, 0);
  std::vector<std::int32_t> peaks(rows, std::numeric_limits<std::int32_t>::min());
  for (std::uint64_t i = 0; i < rows; ++i)
    for (std::uint64_t j = 0; j < cols; ++j) {
      sums[j] += a[i * cols + j];
      peaks[i] = std::max(peaks[i], a[i * cols + j]);
    }
  Array da = arrays.from_host<std::int32_t>("A", {rows, cols}, Distribution::row_blocks(7), a);
  Array dsums = arrays.create("sums", device::ElementType::i32, {cols}, Distribution::replicated());
  Array dpeaks =
      arrays.create("peaks", device::ElementType::i32, {rows}, Distribution::replicated());
  arrays.fill<std::int32_t>(dsums, 777);
  const LaunchStats before = arrays.stats();
  for (int round = 0; round < 2; ++round) {  // a second launch reduces afresh
    arrays.launch(column_sums_kernel(), Grid{{cols, rows}, {4, 4}},
                  WorkDistribution::tiled({cols / 4, rows / 4}),
                  {Argument::value<std::int32_t>(rows), Argument::value<std::int32_t>(cols), da,
                   dsums, dpeaks});
  }
  const LaunchStats after = arrays.stats();
  EXPECT_EQ(after.reduced_in_place - before.reduced_in_place, 4u);
  EXPECT_EQ(after.reduce_partials - before.reduce_partials, 4u);
  for (const ArrayChunk& chunk : dsums.chunks())
    EXPECT_EQ(arrays.read_as<std::int32_t>(dsums, chunk.placement.region), sums)
        << "the replica on rank " << chunk.placement.place.rank << " device "
        << chunk.placement.place.device;
  for (const ArrayChunk& chunk : dpeaks.chunks())
    EXPECT_EQ(arrays.read_as<std::int32_t>(dpeaks, chunk.placement.region), peaks);
  arrays.destroy(da);
  arrays.destroy(dsums);
  arrays.destroy(dpeaks);
}

// Hundreds of superblocks reduce into one region: each device's take a few partials in turn, the
// runtime ordering those that share one (the CPU kernel adds without atomics and a superblock is
// one block, so two superblocks in one partial at once would lose additions).
TEST(ArrayLaunch, ManySuperblocksTakeAFewPartialsInTurn) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t block = 64, superblocks = 300, n = block * superblocks;
  constexpr std::int32_t bins = 8;
  std::vector<std::int32_t> x(n);
  std::vector<std::int32_t> expected(bins, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    x[i] = static_cast<std::int32_t>((i * 7919) % 1000);
    expected[static_cast<std::size_t>(x[i] % bins)] += x[i];
  }
  Array dx = arrays.from_host<std::int32_t>("x", {n}, Distribution::row_blocks(n / 3 + 1), x);
  for (const Distribution& held : {Distribution::replicated(), Distribution::row_blocks(3)}) {
    Array dtally = arrays.create("tally", device::ElementType::i32, {bins}, held);
    const LaunchStats before = arrays.stats();
    for (int round = 0; round < 2; ++round) {  // the second reduces afresh
      arrays.launch(tally_kernel(), Grid{{n}, {block}}, WorkDistribution::tiled({1}),
                    {Argument::value<std::int32_t>(static_cast<std::int32_t>(n)),
                     Argument::value(bins), dx, dtally});
      EXPECT_EQ(arrays.read_as<std::int32_t>(dtally), expected) << held.describe();
    }
    const LaunchStats after = arrays.stats();
    EXPECT_EQ(after.superblocks - before.superblocks, 2 * superblocks);
    EXPECT_LT(after.reduce_partials - before.reduce_partials, superblocks) << held.describe();
    arrays.destroy(dtally);
  }
  arrays.destroy(dx);
}

// Small superblocks run as a few kernel tasks per device (array_batch_bytes): the results are
// those of a task per superblock, every device still gets at least 8 tasks a launch.
TEST(ArrayLaunch, SmallSuperblocksRunAsAFewKernelTasksPerDevice) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t block = 16, superblocks = 480, n = block * superblocks;
  std::vector<float> input(n);
  for (std::uint64_t i = 0; i < n; ++i)
    input[i] = static_cast<float>((i * 53) % 89) - 40.0f;
  const std::vector<float> expected = stencil_reference(input);
  const std::size_t places = arrays.topology().places().size();
  // Work placed as the data (in contiguous groups, or dealt in turn): every use is direct.
  for (const auto assign : {Distribution::Assign::blocked, Distribution::Assign::round_robin}) {
    const WorkDistribution work = assign == Distribution::Assign::blocked
                                      ? WorkDistribution::tiled({1})
                                      : WorkDistribution::round_robin({1});
    Array in = arrays.from_host<float>("in", {n},
                                       Distribution::stencil({block}, {1}).assigned(assign), input);
    Array out = arrays.create("out", device::ElementType::f32, {n},
                              Distribution::tiles({block}).assigned(assign));
    const LaunchStats before = arrays.stats();
    arrays.launch(stencil_kernel(), Grid{{n}, {block}}, work,
                  {Argument::value<std::int32_t>(n), out, in});
    const std::vector<float> result = arrays.read_as<float>(out);
    for (std::uint64_t i = 0; i < n; ++i)
      ASSERT_NEAR(result[i], expected[i], 1e-4) << "element " << i << ", " << work.describe();
    const LaunchStats after = arrays.stats();
    EXPECT_EQ(after.superblocks - before.superblocks, superblocks);
    EXPECT_EQ(after.direct_uses - before.direct_uses, 2 * superblocks) << work.describe();
    EXPECT_LT(after.kernel_tasks - before.kernel_tasks, superblocks / 4) << work.describe();
    EXPECT_GE(after.kernel_tasks - before.kernel_tasks, std::min<std::uint64_t>(8 * places, 480))
        << work.describe();
    arrays.destroy(in);
    arrays.destroy(out);
  }
}

// A stencil whose output has halos (as HotSpot's grids): each superblock's result is copied into
// its neighbours' halos, and a batch's copies go as one operation. A second launch reads those
// halos: its result must be the reference applied twice.
TEST(ArrayLaunch, HaloUpdatesOfABatchGoAsOneOperation) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t block = 16, superblocks = 480, n = block * superblocks;
  std::vector<float> input(n);
  for (std::uint64_t i = 0; i < n; ++i)
    input[i] = static_cast<float>((i * 37) % 71) - 30.0f;
  const std::vector<float> expected = stencil_reference(stencil_reference(input));
  const Distribution halos = Distribution::stencil({block}, {1});
  Array a = arrays.from_host<float>("a", {n}, halos, input);
  Array b = arrays.create("b", device::ElementType::f32, {n}, halos);
  const LaunchStats before = arrays.stats();
  const cluster::PlanStats planned = the_driver->stats();
  arrays.launch(stencil_kernel(), Grid{{n}, {block}}, WorkDistribution::tiled({1}),
                {Argument::value<std::int32_t>(n), b, a});
  const LaunchStats after = arrays.stats();
  const std::uint64_t operations = the_driver->stats().operations - planned.operations;
  arrays.launch(stencil_kernel(), Grid{{n}, {block}}, WorkDistribution::tiled({1}),
                {Argument::value<std::int32_t>(n), a, b});
  const std::vector<float> result = arrays.read_as<float>(a);
  for (std::uint64_t i = 0; i < n; ++i)
    ASSERT_NEAR(result[i], expected[i], 1e-4) << "element " << i;
  EXPECT_EQ(after.box_copies - before.box_copies, 2 * (superblocks - 1));
  const std::uint64_t tasks = after.kernel_tasks - before.kernel_tasks;
  EXPECT_LT(tasks, superblocks / 4);
  // A kernel task and a copy operation a batch; a place's boundary with the next one adds a few
  // (between ranks: the box travels).
  const std::uint64_t places = arrays.topology().places().size();
  EXPECT_LE(operations, 2 * tasks + 8 * places)
      << "of " << after.box_copies - before.box_copies << " box copies";
  arrays.destroy(a);
  arrays.destroy(b);
}

// An array passed in two parameters, one of which writes it: a superblock may read what another
// writes, so each runs as its own task, in plan order.
TEST(ArrayLaunch, AnArrayWrittenThroughOneParameterAndPassedInAnotherIsNotBatched) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t block = 16, superblocks = 64, n = block * superblocks;
  Array a = arrays.from_host<float>("a", {n}, Distribution::stencil({block}, {1}),
                                    std::vector<float>(n, 3.0f));
  const LaunchStats before = arrays.stats();
  arrays.launch(stencil_kernel(), Grid{{n}, {block}}, WorkDistribution::tiled({1}),
                {Argument::value<std::int32_t>(n), a, a});
  arrays.synchronize();
  const LaunchStats after = arrays.stats();
  EXPECT_EQ(after.kernel_tasks - before.kernel_tasks, superblocks);
  arrays.destroy(a);
}

// Superblocks whose reduced regions overlap without being equal (y[i-1:i+1]): every element gets
// the contributions of every superblock that reaches it.
TEST(ArrayLaunch, OverlappingReducedRegionsCombineEveryContribution) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 500;
  std::vector<std::int32_t> x(n);
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = static_cast<std::int32_t>((i * 31) % 97) - 40;
  std::vector<std::int32_t> expected(n, 0);
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t k = i == 0 ? 0 : i - 1; k <= i + 1 && k < n; ++k)
      expected[k] += x[i];
  const ArrayKernel kernel = spread_kernel();
  const std::vector<Distribution> outs{Distribution::row_blocks(n / 4 + 1),
                                       Distribution::stencil({n / 3}, {1}),
                                       Distribution::replicated()};
  const std::vector<WorkDistribution> works = work_distributions_1d();
  for (std::size_t c = 0; c < works.size(); ++c) {
    Array dx = arrays.from_host<std::int32_t>("x", {n}, Distribution::row_blocks(n / 5 + 1), x);
    const Distribution& out = outs[c % outs.size()];
    Array dy = arrays.create("y", device::ElementType::i32, {n}, out);
    arrays.launch(kernel, Grid{{n}, {16}}, works[c], {Argument::value<std::int32_t>(n), dx, dy});
    EXPECT_EQ(arrays.read_as<std::int32_t>(dy), expected)
        << out.describe() << ", " << works[c].describe();
    arrays.destroy(dx);
    arrays.destroy(dy);
  }
}

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ArrayLaunch, BadLaunchesAreErrorsNamingKernelAndArgument) {
  Arrays arrays(*the_node, *the_driver);
  Array x = arrays.create("x", device::ElementType::f32, {64}, Distribution::row_blocks(16));
  Array d = arrays.create("d", device::ElementType::f64, {64}, Distribution::row_blocks(16));
  const ArrayKernel scale = scale_kernel();
  EXPECT_NE(message_of([&] {
              arrays.launch(scale, Grid{{64}, {16}}, WorkDistribution::even(),
                            {Argument::value<std::int32_t>(64), Argument::value(1.0f), d});
            }).find("kernel 'scale', parameter 'x': takes f32 elements, array 'd' has f64"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              arrays.launch(scale, Grid{{64}, {16}}, WorkDistribution::even(),
                            {Argument::value(1.0f), Argument::value(1.0f), x});
            }).find("parameter 'n': takes a i32, was given a f32"),
            std::string::npos);
  // Superblocks whose written regions overlap: refused before anything is planned.
  const ArrayKernel smear(device::KernelDefinition("smear")
                              .array<float>("x", device::ParamAccess::read_write)
                              .cpu([](const device::CpuBlock&) {}),
                          "global i => readwrite x[i:i+8]");
  const std::string overlap = message_of([&] {
    arrays.launch(smear, Grid{{64}, {16}}, WorkDistribution::tiled({1}), {x});
  });
  EXPECT_NE(overlap.find("kernel 'smear': superblocks 0 and 1 both write"), std::string::npos)
      << overlap;
  EXPECT_NE(message_of([] {
              ArrayKernel(device::KernelDefinition("k")
                              .array<float>("y", device::ParamAccess::read)
                              .cpu([](const device::CpuBlock&) {}),
                          "global i => read x[i]");
            }).find("'x' is not a parameter of the kernel"),
            std::string::npos);
  arrays.destroy(x);
  EXPECT_NE(message_of([&] { arrays.read_as<float>(x); }).find("deleted"), std::string::npos);
  arrays.destroy(d);
}

}  // namespace
}  // namespace strata::array::testing

namespace strata::array::testing {
namespace {

// A file numpy wrote (matplotlib's sample data): loaded into tiles over every rank, a kernel's
// result saved again, and the saved file read back equals the same computation on the host.
TEST(ArrayFiles, ANumpyFileGoesThroughTheRanksAndBack) {
  const std::string sample =
      "/usr/share/matplotlib/mpl-data/sample_data/axes_grid/bivariate_normal.npy";
  if (!std::filesystem::exists(sample)) {
    GTEST_SKIP() << sample << " is missing (Debian package python-matplotlib-data)";
  }
  Arrays arrays(*the_node, *the_driver);
  Array density = arrays.load_npy(sample, "density", Distribution::tiles({4, 6}));
  EXPECT_EQ(density.shape().describe(), "15x15");
  EXPECT_EQ(density.type(), device::ElementType::f64);
  const std::string copy = ::testing::TempDir() + "density-copy.npy";
  arrays.save_npy(density, copy);
  store::NpyHeader original_header, copy_header;
  EXPECT_EQ(store::read_npy(copy, copy_header), store::read_npy(sample, original_header));
  EXPECT_EQ(copy_header.shape, original_header.shape);
  arrays.destroy(density);
  const std::string bad = ::testing::TempDir() + "not-numpy.npy";
  std::ofstream(bad) << "x,y\n";
  try {
    arrays.load_npy(bad, "bad", Distribution::replicated());
    ADD_FAILURE() << "a CSV file loaded as .npy";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::array::testing

#if STRATA_TEST_WITH_HDF5
namespace strata::array::testing {
namespace {

// A kernel's result saved to HDF5 by every rank (each its own chunks), loaded again under another
// distribution: the values are the host's computation, and no partial file is left.
TEST(ArrayFiles, Hdf5WrittenByEveryRankLoadsUnderAnotherDistribution) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 600;
  std::vector<float> x(n);
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 17);
  Array dx = arrays.from_host<float>("x", {n}, Distribution::stencil({150}, {2}), x);
  arrays.launch(scale_kernel(), Grid{{n}, {32}}, WorkDistribution::even(),
                {Argument::value<std::int32_t>(n), Argument::value(2.0f), dx});
  for (std::uint64_t i = 0; i < n; ++i)
    x[i] = 2.0f * x[i] + static_cast<float>(i);
  const std::string path = ::testing::TempDir() + "scaled.h5";
  arrays.save_hdf5(dx, path, "/results/x");
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  Array loaded = arrays.load_hdf5(path, "/results/x", "loaded", Distribution::round_robin({77}));
  EXPECT_EQ(loaded.type(), device::ElementType::f32);
  EXPECT_EQ(arrays.read_as<float>(loaded), x);
  try {
    arrays.load_hdf5(path, "/results/y", "missing", Distribution::replicated());
    ADD_FAILURE() << "a missing dataset loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dataset '/results/y'"), std::string::npos) << e.what();
  }
  arrays.destroy(dx);
  arrays.destroy(loaded);
}

}  // namespace
}  // namespace strata::array::testing
#endif
