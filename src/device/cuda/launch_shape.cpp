#include "launch_shape.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "strata/device/errors.hpp"

namespace strata::device::cuda {
namespace {

constexpr const char* axis[3] = {"x", "y", "z"};

[[noreturn]] void refuse(const std::string& kernel, const std::string& what) {
  throw KernelLaunchError(kernel, "", fmt::format("kernel '{}' (cuda): {}", kernel, what));
}

}  // namespace

LaunchShape shape_launch(const std::string& kernel, const LaunchGeometry& geometry,
                         const LaunchLimits& limits) {
  const int dims = geometry.dimensions;
  if (dims < 1 || dims > 3)
    refuse(kernel, fmt::format("a launch has 1 to 3 dimensions, not {}", dims));
  constexpr std::uint64_t defaults[3][3] = {{256, 1, 1}, {16, 16, 1}, {8, 8, 4}};
  const bool choose = geometry.block.volume() == 0;
  LaunchShape shape;
  std::uint64_t threads = 1;
  for (int d = 0; d < dims; ++d) {
    const std::uint64_t global = geometry.global[d];
    if (global == 0) refuse(kernel, fmt::format("the launch has no threads along {}", axis[d]));
    std::uint64_t block = choose ? std::min(defaults[dims - 1][d], global) : geometry.block[d];
    if (block == 0) refuse(kernel, fmt::format("block size 0 along {}", axis[d]));
    if (block > limits.max_block[d]) {
      refuse(kernel, fmt::format("block size {} along {} exceeds the device's {}", block, axis[d],
                                 limits.max_block[d]));
    }
    const std::uint64_t grid = (global + block - 1) / block;
    if (grid > limits.max_grid[d]) {
      refuse(kernel, fmt::format("{} blocks along {} exceed the device's {}", grid, axis[d],
                                 limits.max_grid[d]));
    }
    shape.block[d] = static_cast<unsigned>(block);
    shape.grid[d] = static_cast<unsigned>(grid);
    threads *= block;
  }
  if (threads > limits.max_block_threads) {
    refuse(kernel, fmt::format("a block of {} threads exceeds the device's {} per block", threads,
                               limits.max_block_threads));
  }
  return shape;
}

}  // namespace strata::device::cuda
