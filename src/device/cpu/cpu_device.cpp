#include "cpu_device.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "fftw_plan.hpp"
#include "strata/base/page_memory.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace detail {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("model name")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "host CPU";
}

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * page_size : 0;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

BlockGrid BlockGrid::split(const std::string& kernel, const LaunchGeometry& geometry,
                           const Dim3& block_offset, unsigned compute_units) {
  if (geometry.dimensions < 1 || geometry.dimensions > 3) {
    throw KernelLaunchError(kernel, "",
                            fmt::format("kernel '{}': a launch has 1 to 3 dimensions, not {}",
                                        kernel, geometry.dimensions));
  }
  BlockGrid grid;
  grid.global_ = geometry.global;
  if (geometry.dimensions < 3) grid.global_.z = 1;
  if (geometry.dimensions < 2) grid.global_.y = 1;
  if (grid.global_.volume() == 0) {
    throw KernelLaunchError(kernel, "",
                            fmt::format("kernel '{}': the launch has no threads", kernel));
  }
  if (geometry.block.volume() != 0) {
    grid.block_ = geometry.block;
    if (geometry.dimensions < 3) grid.block_.z = 1;
    if (geometry.dimensions < 2) grid.block_.y = 1;
  } else {
    // Split along the slowest-varying dimension into about four blocks per compute unit.
    const std::uint64_t wanted = 4ull * std::max(1u, compute_units);
    grid.block_ = grid.global_;
    const int slow = geometry.dimensions - 1;
    const std::uint64_t extent = grid.global_[slow];
    const std::uint64_t size = std::max<std::uint64_t>(1, ceil_div(extent, wanted));
    (slow == 0 ? grid.block_.x : slow == 1 ? grid.block_.y : grid.block_.z) = size;
  }
  grid.counts_ =
      Dim3{ceil_div(grid.global_.x, grid.block_.x), ceil_div(grid.global_.y, grid.block_.y),
           ceil_div(grid.global_.z, grid.block_.z)};
  grid.origin_ = Dim3{block_offset.x * grid.block_.x, block_offset.y * grid.block_.y,
                      block_offset.z * grid.block_.z};
  return grid;
}

BlockGrid BlockGrid::merged_along_x(unsigned compute_units) const {
  const std::uint64_t wanted = 4ull * std::max(1u, compute_units);
  const std::uint64_t others = counts_.y * counts_.z;
  // Runs per row so that all rows together give at least `wanted` calls.
  const std::uint64_t runs = std::clamp<std::uint64_t>(ceil_div(wanted, others), 1, counts_.x);
  // Rounded down: the runs a row keeps are at least `runs`.
  const std::uint64_t run_blocks = std::max<std::uint64_t>(1, counts_.x / runs);
  BlockGrid merged = *this;
  merged.block_.x = block_.x * run_blocks;
  merged.counts_.x = ceil_div(counts_.x, run_blocks);
  return merged;
}

std::pair<Dim3, Dim3> BlockGrid::range(std::uint64_t block) const {
  const std::uint64_t bx = block % counts_.x;
  const std::uint64_t by = (block / counts_.x) % counts_.y;
  const std::uint64_t bz = block / (counts_.x * counts_.y);
  Dim3 begin{bx * block_.x, by * block_.y, bz * block_.z};
  Dim3 end{std::min(global_.x, begin.x + block_.x), std::min(global_.y, begin.y + block_.y),
           std::min(global_.z, begin.z + block_.z)};
  begin = Dim3{begin.x + origin_.x, begin.y + origin_.y, begin.z + origin_.z};
  end = Dim3{end.x + origin_.x, end.y + origin_.y, end.z + origin_.z};
  return {begin, end};
}

CpuDevice::CpuDevice(std::shared_ptr<BlockRunner> runner) {
  info_.backend = BackendKind::cpu;
  info_.name = cpu_model();
  info_.platform = "Strata CPU backend";
  info_.id = "cpu";
  info_.memory_bytes = physical_memory();
  info_.max_allocation_bytes = info_.memory_bytes;
  info_.compute_units = std::max(1u, std::thread::hardware_concurrency());
  info_.max_block_threads = 1u << 30;
  info_.host_memory = true;
  for (int kind = 0; kind < queue_kinds; ++kind)
    queues_[kind] = std::make_unique<CpuQueue>(static_cast<QueueKind>(kind), *this, runner);
}

CpuDevice::~CpuDevice() = default;

DeviceBuffer CpuDevice::allocate(std::uint64_t bytes) {
  void* data = map_pages(bytes);
  if (data == nullptr) {
    throw DeviceError(fmt::format("cpu: cannot allocate {} B of device memory", bytes));
  }
  return DeviceBuffer(this, data, bytes);
}

DeviceBuffer CpuDevice::use_host_memory(void* data, std::uint64_t bytes) {
  return DeviceBuffer::in_place(this, data, bytes);
}

void CpuDevice::release(void* handle, std::uint64_t bytes) noexcept {
  unmap_pages(handle, bytes);
}

std::shared_ptr<const CompiledKernel> CpuDevice::compile(const KernelDefinition& kernel,
                                                         const CompileOptions& options) {
  if (!kernel.implements(BackendKind::cpu)) {
    throw KernelCompileError(kernel.name(), "cpu",
                             fmt::format("kernel '{}' has no C++ implementation for the cpu "
                                         "backend (KernelDefinition::cpu)",
                                         kernel.name()),
                             "");
  }
  return std::make_shared<CpuCompiledKernel>(kernel, options);
}

std::shared_ptr<FftPlan> CpuDevice::make_fft_plan(const FftShape& shape) {
  return std::make_shared<FftwPlan>(shape, *this);
}

}  // namespace detail

std::unique_ptr<Device> make_cpu_device(std::shared_ptr<BlockRunner> runner) {
  return std::make_unique<detail::CpuDevice>(std::move(runner));
}

}  // namespace strata::device
