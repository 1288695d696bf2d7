#pragma once
// A launch geometry as CUDA grid and block dimensions, refused (KernelLaunchError naming the
// kernel and the fault) when CUDA cannot run it. Pure C++: tested without a GPU.

#include <string>

#include "strata/device/kernel.hpp"

namespace strata::device::cuda {

// Grid and block extents per dimension; the grid covers `global` rounded up to whole blocks
// (CUDA kernels bound-check their indices themselves).
struct LaunchShape {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
};

// Limits of the device (cudaDeviceProp).
struct LaunchLimits {
  unsigned max_block_threads = 1024;
  unsigned max_block[3] = {1024, 1024, 64};
  unsigned max_grid[3] = {2147483647u, 65535u, 65535u};
};

// A zero block means: 256 threads (1-D), 16 x 16 (2-D), 8 x 8 x 4 (3-D), clipped to `global`.
LaunchShape shape_launch(const std::string& kernel, const LaunchGeometry& geometry,
                         const LaunchLimits& limits);

}  // namespace strata::device::cuda
