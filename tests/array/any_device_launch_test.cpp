// Distributed launches whose superblocks run on whichever device of their rank the rank's
// placement policy picks (WorkDistribution::on_any_device): the results equal a sequential
// reference whatever the policy (the ctest entries run these under least-loaded, PATS and FCFS),
// reductions and halos included, and a kernel with only a C++ body runs on the CPU device alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "array_launch_support.hpp"
#include "strata/base/error.hpp"

namespace strata::array::testing {
namespace {

TEST(AnyDeviceLaunch, StencilAndMatrixProductEqualTheReference) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 40;
  std::vector<float> a(n * n), b(n * n), expected(n * n, 0.0f);
  for (std::uint64_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 7) - 3.0f;
    b[i] = static_cast<float>(i % 5) * 0.5f;
  }
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j)
      for (std::uint64_t k = 0; k < n; ++k)
        expected[i * n + j] += a[i * n + k] * b[k * n + j];
  const std::vector<WorkDistribution> works{WorkDistribution::tiled({1, 1}).on_any_device(),
                                            WorkDistribution::even().on_any_device(8),
                                            WorkDistribution::automatic({2, 1}).on_any_device(2)};
  for (const WorkDistribution& work : works) {
    Array da = arrays.from_host<float>("A", {n, n}, Distribution::row_blocks(9), a);
    Array db = arrays.from_host<float>("B", {n, n}, Distribution::replicated(), b);
    Array dc = arrays.create("C", device::ElementType::f32, {n, n}, Distribution::tiles({16, 16}));
    arrays.launch(matmul_kernel(), Grid{{n, n}, {8, 8}}, work,
                  {Argument::value<std::int32_t>(n), dc, da, db});
    const std::vector<float> result = arrays.read_as<float>(dc);
    for (std::uint64_t i = 0; i < n * n; ++i)
      ASSERT_NEAR(result[i], expected[i], 1e-3) << "element " << i << ", " << work.describe();
    arrays.destroy(da);
    arrays.destroy(db);
    arrays.destroy(dc);
  }

  constexpr std::uint64_t m = 900;
  std::vector<float> x(m);
  for (std::uint64_t i = 0; i < m; ++i)
    x[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  // Overlapping chunks: every halo element is written twice by the scale kernel's scatter.
  Array dx = arrays.from_host<float>("x", {m}, Distribution::stencil({100}, {2}), x);
  Array dy = arrays.create("y", device::ElementType::f32, {m}, Distribution::row_blocks(200));
  for (int round = 0; round < 3; ++round) {
    arrays.launch(scale_kernel(), Grid{{m}, {16}}, WorkDistribution::tiled({4}).on_any_device(),
                  {Argument::value<std::int32_t>(m), Argument::value(0.5f), dx});
    for (std::uint64_t i = 0; i < m; ++i)
      x[i] = 0.5f * x[i] + static_cast<float>(i);
  }
  arrays.launch(stencil_kernel(), Grid{{m}, {32}}, WorkDistribution::tiled({3}).on_any_device(),
                {Argument::value<std::int32_t>(m), dy, dx});
  EXPECT_EQ(arrays.read_as<float>(dx), x);
  const std::vector<float> y = arrays.read_as<float>(dy);
  for (std::uint64_t i = 0; i < m; ++i) {
    const float left = i >= 1 ? x[i - 1] : 0.0f;
    const float right = i + 1 < m ? x[i + 1] : 0.0f;
    ASSERT_NEAR(y[i], (left + x[i] + right) / 3.0f, 1e-3f) << "element " << i;
  }
  arrays.destroy(dx);
  arrays.destroy(dy);
}

TEST(AnyDeviceLaunch, ReductionsEqualTheReference) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t rows = 37;
  constexpr std::uint64_t cols = 53;
  std::vector<std::int32_t> a(rows * cols);
  for (std::uint64_t i = 0; i < rows * cols; ++i)
    a[i] = static_cast<std::int32_t>((i * 7919) % 1009) - 500;
  std::vector<std::int32_t> sums(cols, 0);
  std::vector<std::int32_t> peaks(rows, std::numeric_limits<std::int32_t>::min());
  for (std::uint64_t i = 0; i < rows; ++i) {
    for (std::uint64_t j = 0; j < cols; ++j) {
      sums[j] += a[i * cols + j];
      peaks[i] = std::max(peaks[i], a[i * cols + j]);
    }
  }
  Array da = arrays.from_host<std::int32_t>("A", {rows, cols}, Distribution::tiles({16, 24}), a);
  Array dsums = arrays.create("sums", device::ElementType::i32, {cols}, Distribution::replicated());
  Array dpeaks =
      arrays.create("peaks", device::ElementType::i32, {rows}, Distribution::row_blocks(10));
  arrays.launch(column_sums_kernel(), Grid{{cols, rows}, {4, 4}},
                WorkDistribution::tiled({3, 2}).on_any_device(4),
                {Argument::value<std::int32_t>(rows), Argument::value<std::int32_t>(cols), da,
                 dsums, dpeaks});
  EXPECT_EQ(arrays.read_as<std::int32_t>(dsums), sums);
  EXPECT_EQ(arrays.read_as<std::int32_t>(dpeaks), peaks);
  for (const ArrayChunk& chunk : dsums.chunks())
    EXPECT_EQ(arrays.read_as<std::int32_t>(dsums, chunk.placement.region), sums)
        << "the replica on rank " << chunk.placement.place.rank << " device "
        << chunk.placement.place.device;
  arrays.destroy(da);
  arrays.destroy(dsums);
  arrays.destroy(dpeaks);
}

// Without an OpenCL or CUDA body the kernel's only candidate is the CPU device, wherever its
// data lies: placed on another device it would fail with "no implementation".
TEST(AnyDeviceLaunch, AKernelWithOnlyACppBodyRunsOnTheCpuDevice) {
  Arrays arrays(*the_node, *the_driver);
  constexpr std::uint64_t n = 5000;
  std::vector<std::int32_t> x(n);
  std::iota(x.begin(), x.end(), -17);
  // Chunks on every place, the accelerators' included.
  Array dx = arrays.from_host<std::int32_t>("x", {n}, Distribution::round_robin({300}), x);
  arrays.launch(negate_on_cpu_kernel(), Grid{{n}, {64}},
                WorkDistribution::round_robin({2}).on_any_device(20), {dx});
  arrays.synchronize();
  for (std::int32_t& value : x)
    value = -value;
  EXPECT_EQ(arrays.read_as<std::int32_t>(dx), x);
  arrays.destroy(dx);
}

TEST(AnyDeviceLaunch, ANegativeSpeedupIsRefused) {
  EXPECT_THROW((void)WorkDistribution::tiled({4}).on_any_device(-1), Error);
}

}  // namespace
}  // namespace strata::array::testing
