// Devices driven through the runtime: tasks on a device's compute and copy executors form an
// upload / process / download pipeline whose stages overlap across tiles.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>

#include "strata/runtime/device_executors.hpp"

namespace strata::runtime {
namespace {

using device::CpuBlock;
using device::Dim3;
using device::Event;
using device::KernelArg;
using device::KernelDefinition;
using device::LaunchGeometry;
using device::ParamAccess;
using device::QueueKind;

Config two_workers() {
  Config config;
  config.section<runtime::RuntimeSettings>().cpu_threads = 2;
  return config;
}

// square(u32 n, f32 x[]): x[i] = x[i] * x[i]. (Which threads run its blocks:
// cpu_pool_block_runner_test.cpp.)
KernelDefinition square_kernel() {
  return KernelDefinition("square")
      .scalar<std::uint32_t>("n")
      .array<float>("x", ParamAccess::read_write)
      .cpu([](const CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        float* x = block.array<float>(1);
        for (auto i = block.begin.x; i < block.end.x && i < n; ++i)
          x[i] *= x[i];
      });
}

// One tile's three stages as tasks on the device's three executors.
struct Tile {
  std::vector<float> host;
  device::DeviceBuffer buffer;
  TaskHandle upload, process, download;
};

TEST(DevicePipeline, TilesFlowThroughUploadProcessDownload) {
  Runtime rt(two_workers());
  auto cpu = device::make_cpu_device(cpu_pool_block_runner(rt));
  const DeviceExecutors exec = add_device(rt, *cpu);
  auto kernel = cpu->compile(square_kernel());
  constexpr std::uint32_t n = 4096;
  std::vector<Tile> tiles(16);
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    Tile& tile = tiles[t];
    tile.host.resize(n);
    std::iota(tile.host.begin(), tile.host.end(), static_cast<float>(t));
    tile.buffer = cpu->allocate(n * sizeof(float));
    tile.upload = rt.submit(TaskSpec("upload").on(exec.upload), [&](TaskContext& ctx) {
      complete_when(ctx, cpu->queue(QueueKind::host_to_device)
                             .copy_to_device(tile.buffer, 0, tile.host.data(), n * 4));
    });
    tile.process =
        rt.submit(TaskSpec("square").on(exec.compute).after(tile.upload), [&](TaskContext& ctx) {
          complete_when(ctx,
                        cpu->queue(QueueKind::compute)
                            .launch(*kernel, LaunchGeometry{Dim3{n}},
                                    {KernelArg::value(n), KernelArg::array<float>(tile.buffer)}));
        });
    tile.download = rt.submit(
        TaskSpec("download").on(exec.download).after(tile.process), [&](TaskContext& ctx) {
          complete_when(ctx, cpu->queue(QueueKind::device_to_host)
                                 .copy_to_host(tile.host.data(), tile.buffer, 0, n * 4));
        });
  }
  rt.wait_all();
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(t) + static_cast<float>(i);
      ASSERT_EQ(tiles[t].host[i], v * v) << "tile " << t << " element " << i;
    }
  }
  const auto summary = rt.summary();
  EXPECT_NE(summary.format().find("cpu compute"), std::string::npos) << summary.format();
}

TEST(DevicePipeline, UploadsOfLaterTilesProceedWhileAKernelIsHeldBack) {
  Runtime rt(two_workers());
  auto cpu = device::make_cpu_device(cpu_pool_block_runner(rt));
  const DeviceExecutors exec = add_device(rt, *cpu);
  auto kernel = cpu->compile(square_kernel());
  Event gate = Event::manual();  // holds the first tile's kernel back
  constexpr std::uint32_t n = 256;
  std::vector<Tile> tiles(4);
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    Tile& tile = tiles[t];
    tile.host.assign(n, 2.0f);
    tile.buffer = cpu->allocate(n * sizeof(float));
    tile.upload = rt.submit(TaskSpec("upload").on(exec.upload), [&](TaskContext& ctx) {
      complete_when(ctx, cpu->queue(QueueKind::host_to_device)
                             .copy_to_device(tile.buffer, 0, tile.host.data(), n * 4));
    });
    tile.process =
        rt.submit(TaskSpec("square").on(exec.compute).after(tile.upload), [&, t](TaskContext& ctx) {
          const std::span<const Event> after =
              t == 0 ? std::span<const Event>(&gate, 1) : std::span<const Event>();
          complete_when(
              ctx, cpu->queue(QueueKind::compute)
                       .launch(*kernel, LaunchGeometry{Dim3{n}},
                               {KernelArg::value(n), KernelArg::array<float>(tile.buffer)}, after));
        });
  }
  // Every upload finishes although the compute queue is stuck on tile 0.
  for (auto& tile : tiles)
    tile.upload.wait();
  EXPECT_FALSE(tiles[0].process.done());
  gate.state()->complete();
  rt.wait_all();
  for (auto& tile : tiles)
    EXPECT_EQ(tile.process.status(), TaskStatus::succeeded);
}

TEST(DevicePipeline, IndependentKernelsOnTheCpuDeviceRunSideBySide) {
  Runtime rt(two_workers());
  auto cpu = device::make_cpu_device(cpu_pool_block_runner(rt));
  const DeviceExecutors exec = add_device(rt, *cpu);
  // Each kernel waits (10 s at most) until both run: one compute thread would run them in turn.
  std::atomic<int> running{0};
  std::atomic<int> met{0};
  auto kernel = cpu->compile(KernelDefinition("meet").cpu([&](const CpuBlock&) {
    running.fetch_add(1);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (running.load() < 2 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (running.load() >= 2) met.fetch_add(1);
  }));
  for (int k = 0; k < 2; ++k) {
    rt.submit(TaskSpec("meet").on(exec.compute), [&](TaskContext& ctx) {
      complete_when(ctx,
                    cpu->queue(QueueKind::compute).launch(*kernel, LaunchGeometry{Dim3{1}}, {}));
    });
  }
  rt.wait_all();
  EXPECT_EQ(met.load(), 2);
}

TEST(DevicePipeline, KernelErrorFailsItsTaskAndTheDownloadWithTheOriginalError) {
  Runtime rt(two_workers());
  auto cpu = device::make_cpu_device(cpu_pool_block_runner(rt));
  const DeviceExecutors exec = add_device(rt, *cpu);
  auto kernel = cpu->compile(KernelDefinition("explode").cpu([](const CpuBlock& block) {
    if (block.begin.x == 0) throw std::range_error("index 0 is cursed");
  }));
  TaskHandle process = rt.submit(TaskSpec("explode").on(exec.compute), [&](TaskContext& ctx) {
    complete_when(ctx,
                  cpu->queue(QueueKind::compute).launch(*kernel, LaunchGeometry{Dim3{64}}, {}));
  });
  bool downloaded = false;
  TaskHandle download =
      rt.submit(TaskSpec("download").on(exec.download).after(process), [&] { downloaded = true; });
  try {
    rt.wait_all();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_EQ(e.task(), "explode");
    EXPECT_THROW(e.rethrow_original(), std::range_error);
    EXPECT_NE(std::string(e.what()).find("index 0 is cursed"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(downloaded);
  EXPECT_EQ(download.status(), TaskStatus::failed);
}

TEST(DevicePipeline, EveryDiscoveredDeviceGetsItsOwnExecutors) {
  Runtime rt(two_workers());
  Config config;
  config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  auto set = device::discover_devices(config, cpu_pool_block_runner(rt));
  std::vector<DeviceExecutors> all;
  for (auto& dev : set.devices)
    all.push_back(add_device(rt, *dev));
  ASSERT_FALSE(all.empty());
  for (const auto& e : all) {
    EXPECT_NE(rt.executor(e.compute).name().find(e.device->info().id), std::string::npos);
    EXPECT_NE(e.compute, e.upload);
    EXPECT_NE(e.upload, e.download);
    EXPECT_EQ(e.of(QueueKind::device_to_host), e.download);
  }
}

}  // namespace
}  // namespace strata::runtime
