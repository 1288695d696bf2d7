// The default device pool: 90% of the memory free at start, sized again when another process
// takes memory between the asking and the allocation (ranks or tests sharing one GPU).
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "strata/base/units.hpp"
#include "strata/device/device.hpp"
#include "strata/device/errors.hpp"
#include "strata/memory/memory_manager.hpp"

namespace strata::memory {
namespace {

// A device of 1000 MiB whose free memory answers come from a list (the last one repeats), and
// which refuses allocations above `allocatable`: what another process left.
class SharedDevice final : public device::Device {
 public:
  SharedDevice(std::vector<std::uint64_t> free_answers, std::uint64_t allocatable,
               std::uint64_t offset_alignment = 1, bool host_memory = false)
      : free_answers_(std::move(free_answers)), allocatable_(allocatable) {
    info_.buffer_offset_alignment = offset_alignment;
    info_.host_memory = host_memory;
    info_.id = "shared:0";
    info_.name = "a device shared with other processes";
    info_.memory_bytes = 1000 * MiB;
  }
  const device::DeviceInfo& info() const override { return info_; }
  std::uint64_t free_memory_bytes() const override {
    const std::uint64_t answer = free_answers_[std::min(asked_, free_answers_.size() - 1)];
    ++asked_;
    return answer;
  }
  device::DeviceBuffer allocate(std::uint64_t bytes) override {
    allocations.push_back(bytes);
    if (bytes > allocatable_) throw device::DeviceError("shared:0: cannot allocate");
    return device::DeviceBuffer(this, &pool_handle_, bytes);  // never touched: a handle only
  }
  device::HostBuffer allocate_host(std::uint64_t bytes) override {
    host_allocations.push_back(bytes);
    return Device::allocate_host(bytes);
  }
  device::Queue& queue(device::QueueKind) override { throw std::logic_error("no queues"); }
  std::shared_ptr<const device::CompiledKernel> compile(const device::KernelDefinition&,
                                                        const device::CompileOptions&) override {
    throw std::logic_error("no kernels");
  }

  std::vector<std::uint64_t> allocations;
  std::vector<std::uint64_t> host_allocations;

 protected:
  void release(void*, std::uint64_t) noexcept override {}
  std::shared_ptr<device::FftPlan> make_fft_plan(const device::FftShape&) override {
    throw std::logic_error("no FFTs");
  }

 private:
  device::DeviceInfo info_;
  std::vector<std::uint64_t> free_answers_;
  std::uint64_t allocatable_;
  mutable std::size_t asked_ = 0;
  char pool_handle_ = 0;
};

MemoryOptions default_capacity() {
  MemoryOptions options;
  options.host_capacity = 1 * MiB;
  options.device_capacity = 0;  // the default
  return options;
}

std::uint64_t device_capacity(const MemoryManager& manager) {
  for (const SpaceStats& space : manager.stats().spaces)
    if (space.kind == SpaceKind::device) return space.capacity;
  return 0;
}

TEST(DefaultDevicePool, TakesNinetyPercentOfTheMemoryFreeAtStart) {
  SharedDevice device({400 * MiB}, 1000 * MiB);
  device::Device* devices[1] = {&device};
  const MemoryManager manager(default_capacity(), devices);
  EXPECT_EQ(device_capacity(manager), 400 * MiB / 10 * 9);
  EXPECT_EQ(device.allocations, (std::vector<std::uint64_t>{400 * MiB / 10 * 9}));
}

TEST(DefaultDevicePool, IsSizedAgainWhenAnotherProcessTookTheMemoryMeanwhile) {
  // Free memory read as 1000 MiB, then another process takes 800 MiB before the allocation.
  SharedDevice device({1000 * MiB, 200 * MiB}, 200 * MiB);
  device::Device* devices[1] = {&device};
  const MemoryManager manager(default_capacity(), devices);
  EXPECT_EQ(device_capacity(manager), 200 * MiB / 10 * 9);
  EXPECT_EQ(device.allocations,
            (std::vector<std::uint64_t>{1000 * MiB / 10 * 9, 200 * MiB / 10 * 9}));
}

TEST(DefaultDevicePool, GivesUpAfterThreeTriesWithTheDevicesError) {
  SharedDevice device({500 * MiB}, 100 * MiB);
  device::Device* devices[1] = {&device};
  EXPECT_THROW(MemoryManager(default_capacity(), devices), device::DeviceError);
  EXPECT_EQ(device.allocations.size(), 3u);
}

TEST(DefaultDevicePool, AConfiguredCapacityIsAllocatedAsGiven) {
  SharedDevice device({100 * MiB}, 1000 * MiB);
  device::Device* devices[1] = {&device};
  MemoryOptions options = default_capacity();
  options.device_capacity = 300 * MiB;
  const MemoryManager manager(options, devices);
  EXPECT_EQ(device_capacity(manager), 300 * MiB);
}

TEST(DevicePool, ChunksStartWhereTheDeviceTakesAnArrayArgument) {
  // NVIDIA's OpenCL aligns base addresses to 512 B; chunks of 100 B must not pack at the pool's
  // usual 256 B.
  SharedDevice device({1000 * MiB}, 1000 * MiB, 512);
  device::Device* devices[1] = {&device};
  MemoryOptions options = default_capacity();
  options.device_capacity = 64 * 1024;
  MemoryManager manager(options, devices);
  const SpaceId space = manager.space_of(device);
  for (int i = 0; i < 8; ++i) {
    const ChunkRequest write{manager.create_chunk("small", 100), ChunkAccess::write};
    const std::vector<ChunkView> views = manager.acquire(std::span(&write, 1), space);
    ASSERT_EQ(views.size(), 1u);
    EXPECT_EQ(views[0].offset % 512, 0u) << "chunk " << i << " at " << views[0].offset;
  }
}

// The host tier is pinned by the first device whose memory is not host memory: with the CPU
// device listed first, the GPU's backend allocates it, and copies to the GPU never stage.
TEST(DefaultDevicePool, TheHostTierIsAllocatedByTheFirstDeviceWithMemoryOfItsOwn) {
  SharedDevice cpu({400 * MiB}, 1000 * MiB, 1, true), gpu({400 * MiB}, 1000 * MiB),
      other_gpu({400 * MiB}, 1000 * MiB);
  device::Device* devices[3] = {&cpu, &gpu, &other_gpu};
  const MemoryManager manager(default_capacity(), devices);
  EXPECT_TRUE(cpu.host_allocations.empty());
  EXPECT_EQ(gpu.host_allocations, (std::vector<std::uint64_t>{1 * MiB}));
  EXPECT_TRUE(other_gpu.host_allocations.empty());

  SharedDevice only_host({400 * MiB}, 1000 * MiB, 1, true);
  device::Device* host_devices[1] = {&only_host};
  const MemoryManager on_host(default_capacity(), host_devices);
  EXPECT_EQ(only_host.host_allocations, (std::vector<std::uint64_t>{1 * MiB}));
}

}  // namespace
}  // namespace strata::memory
