// Launch geometry to CUDA grid and block, and refusals naming the fault (no GPU needed).

#include "launch_shape.hpp"

#include <gtest/gtest.h>

#include "strata/device/errors.hpp"

namespace strata::device::cuda {
namespace {

std::string refusal(const LaunchGeometry& geometry, const LaunchLimits& limits = {}) {
  try {
    shape_launch("k", geometry, limits);
  } catch (const KernelLaunchError& e) {
    EXPECT_EQ(e.kernel(), "k");
    return e.what();
  }
  return "accepted";
}

TEST(LaunchShape, RoundsTheGridUpToWholeBlocks) {
  const auto shape = shape_launch("k", LaunchGeometry{Dim3{1000, 7}, Dim3{128, 4}, 2}, {});
  EXPECT_EQ(shape.grid[0], 8u);
  EXPECT_EQ(shape.grid[1], 2u);
  EXPECT_EQ(shape.grid[2], 1u);
  EXPECT_EQ(shape.block[0], 128u);
  EXPECT_EQ(shape.block[1], 4u);
  EXPECT_EQ(shape.block[2], 1u);
}

TEST(LaunchShape, ChoosesABlockWhenGivenNone) {
  auto one = shape_launch("k", LaunchGeometry{Dim3{1'000'000}, Dim3{0, 0, 0}, 1}, {});
  EXPECT_EQ(one.block[0], 256u);
  EXPECT_EQ(one.grid[0], 3907u);
  auto small = shape_launch("k", LaunchGeometry{Dim3{10, 3}, Dim3{0, 0, 0}, 2}, {});
  EXPECT_EQ(small.block[0], 10u);
  EXPECT_EQ(small.block[1], 3u);
  auto three = shape_launch("k", LaunchGeometry{Dim3{64, 64, 64}, Dim3{0, 0, 0}, 3}, {});
  EXPECT_EQ(three.block[0] * three.block[1] * three.block[2], 256u);
}

TEST(LaunchShape, IgnoresUnusedDimensions) {
  const auto shape = shape_launch("k", LaunchGeometry{Dim3{64, 0, 0}, Dim3{32, 0, 0}, 1}, {});
  EXPECT_EQ(shape.grid[1], 1u);
  EXPECT_EQ(shape.block[1], 1u);
}

TEST(LaunchShape, RefusalsNameTheFault) {
  EXPECT_NE(refusal(LaunchGeometry{Dim3{64}, Dim3{32}, 4}).find("1 to 3 dimensions"),
            std::string::npos);
  EXPECT_NE(refusal(LaunchGeometry{Dim3{0}, Dim3{32}, 1}).find("no threads along x"),
            std::string::npos);
  EXPECT_NE(refusal(LaunchGeometry{Dim3{64, 64}, Dim3{64, 32}, 2}).find("2048 threads"),
            std::string::npos);
  EXPECT_NE(refusal(LaunchGeometry{Dim3{64, 64, 128}, Dim3{1, 1, 128}, 3}).find("along z"),
            std::string::npos);
  LaunchLimits tiny;
  tiny.max_grid[1] = 4;
  EXPECT_NE(refusal(LaunchGeometry{Dim3{1, 100}, Dim3{1, 1}, 2}, tiny).find("100 blocks along y"),
            std::string::npos);
}

}  // namespace
}  // namespace strata::device::cuda
