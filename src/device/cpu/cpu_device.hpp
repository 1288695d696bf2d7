#pragma once
// The CPU backend: host memory as device memory, C++ kernels run over blocks of the index space
// by a BlockRunner (the runtime's CPU pool), three host-thread queues.

#include <array>
#include <memory>

#include "cpu_queue.hpp"
#include "strata/device/backends.hpp"

namespace strata::device::detail {

// The blocks a launch's index space is split into, and each block's index range.
class BlockGrid {
 public:
  // Uses geometry.block where given, else about four blocks per compute unit, split along the
  // slowest-varying dimension. `block_offset` shifts indices (virtual blocks).
  static BlockGrid split(const std::string& kernel, const LaunchGeometry& geometry,
                         const Dim3& block_offset, unsigned compute_units);
  // The same index space in runs of whole blocks along x (CpuCalls::any_range): as long as
  // possible while at least four runs a compute unit remain, whole rows of blocks at most.
  BlockGrid merged_along_x(unsigned compute_units) const;
  std::uint64_t blocks() const { return counts_.volume(); }
  std::pair<Dim3, Dim3> range(std::uint64_t block) const;

 private:
  Dim3 global_;
  Dim3 block_;
  Dim3 counts_;
  Dim3 origin_{0, 0, 0};
};

// A "compiled" CPU kernel: the C++ function, the block offset to apply and where the array
// parameters' regions lie (virtual blocks).
class CpuCompiledKernel final : public CompiledKernel {
 public:
  using CompiledKernel::CompiledKernel;
  const Dim3& block_offset() const { return options().block_offset; }
  const std::vector<ArrayPlacement>& placements() const { return options().placements; }
};

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(std::shared_ptr<BlockRunner> runner);
  ~CpuDevice() override;
  const DeviceInfo& info() const override { return info_; }
  DeviceBuffer allocate(std::uint64_t bytes) override;
  DeviceBuffer use_host_memory(void* data, std::uint64_t bytes) override;
  Queue& queue(QueueKind kind) override { return *queues_[static_cast<int>(kind)]; }
  std::shared_ptr<const CompiledKernel> compile(const KernelDefinition& kernel,
                                                const CompileOptions& options) override;
  std::shared_ptr<FftPlan> make_fft_plan(const FftShape& shape) override;

 protected:
  void release(void* handle, std::uint64_t bytes) noexcept override;

 private:
  DeviceInfo info_;
  std::array<std::unique_ptr<CpuQueue>, queue_kinds> queues_;
};

}  // namespace strata::device::detail
