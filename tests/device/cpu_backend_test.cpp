#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "strata/device/backends.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

// A kernel that counts how often each index of a 3-D space is visited.
KernelDefinition visit_counter() {
  return KernelDefinition("visit")
      .scalar<std::uint32_t>("nx")
      .scalar<std::uint32_t>("ny")
      .array<std::uint32_t>("visits", ParamAccess::read_write, 3)
      .cpu([](const CpuBlock& block) {
        const auto nx = block.scalar<std::uint32_t>(0);
        const auto ny = block.scalar<std::uint32_t>(1);
        auto* visits = block.array<std::uint32_t>(2);
        for (auto z = block.begin.z; z < block.end.z; ++z)
          for (auto y = block.begin.y; y < block.end.y; ++y)
            for (auto x = block.begin.x; x < block.end.x; ++x) {
              std::atomic_ref<std::uint32_t>(visits[(z * ny + y) * nx + x]).fetch_add(1);
            }
      });
}

class CpuBackendTest : public ::testing::Test {
 protected:
  std::unique_ptr<Device> cpu = make_cpu_device(default_block_runner());
  Queue& compute = cpu->queue(QueueKind::compute);
};

TEST_F(CpuBackendTest, DeviceInfoDescribesTheHost) {
  EXPECT_EQ(cpu->info().backend, BackendKind::cpu);
  EXPECT_EQ(cpu->info().id, "cpu");
  EXPECT_GT(cpu->info().memory_bytes, 0u);
  EXPECT_GE(cpu->info().compute_units, 1u);
  EXPECT_TRUE(cpu->info().host_memory);
}

TEST_F(CpuBackendTest, EveryIndexOf1dTo3dSpacesIsVisitedExactlyOnce) {
  const LaunchGeometry cases[] = {
      {Dim3{1001}, Dim3{0, 0, 0}, 1},       {Dim3{37, 23}, Dim3{0, 0, 0}, 2},
      {Dim3{9, 7, 5}, Dim3{0, 0, 0}, 3},    {Dim3{64, 10}, Dim3{16, 3}, 2},
      {Dim3{10, 10, 10}, Dim3{3, 4, 5}, 3},
  };
  auto kernel = cpu->compile(visit_counter());
  for (const auto& geometry : cases) {
    const Dim3 g = geometry.global;
    const std::uint64_t count =
        g.x * (geometry.dimensions > 1 ? g.y : 1) * (geometry.dimensions > 2 ? g.z : 1);
    DeviceBuffer visits = cpu->allocate(count * 4);
    std::vector<std::uint32_t> zeros(count, 0);
    compute.copy_to_device(visits, 0, zeros.data(), count * 4).wait();
    compute
        .launch(*kernel, geometry,
                {KernelArg::value(static_cast<std::uint32_t>(g.x)),
                 KernelArg::value(static_cast<std::uint32_t>(geometry.dimensions > 1 ? g.y : 1)),
                 KernelArg::array<std::uint32_t>(visits)})
        .wait();
    std::vector<std::uint32_t> seen(count);
    compute.copy_to_host(seen.data(), visits, 0, count * 4).wait();
    for (std::uint64_t i = 0; i < count; ++i)
      ASSERT_EQ(seen[i], 1u) << "index " << i << " of a " << geometry.dimensions << "-D launch";
  }
}

// Random launches of a kernel that may be called with any range of whole blocks: every index is
// visited once; each call covers whole blocks, one block in y and z and a run of them along x;
// whole rows when the launch has rows enough for the device's threads, and never fewer calls
// than four a compute unit allow. Called per block, the same launches see exactly their blocks.
TEST_F(CpuBackendTest, AnyRangeKernelsAreCalledForRunsOfWholeBlocksAlongX) {
  struct Call {
    Dim3 begin, end;
  };
  std::mutex lock;
  std::vector<Call> calls;
  const auto record = [&](const CpuBlock& block) {
    auto* visits = block.array<std::uint32_t>(0);
    const auto nx = block.scalar<std::uint32_t>(1), ny = block.scalar<std::uint32_t>(2);
    const auto ox = block.scalar<std::uint32_t>(3), oy = block.scalar<std::uint32_t>(4),
               oz = block.scalar<std::uint32_t>(5);
    for (auto z = block.begin.z; z < block.end.z; ++z)
      for (auto y = block.begin.y; y < block.end.y; ++y)
        for (auto x = block.begin.x; x < block.end.x; ++x)
          std::atomic_ref<std::uint32_t>(visits[((z - oz) * ny + (y - oy)) * nx + (x - ox)])
              .fetch_add(1);
    std::lock_guard guard(lock);
    calls.push_back({block.begin, block.end});
  };
  const auto define = [&](CpuCalls style) {
    return KernelDefinition("record")
        .array<std::uint32_t>("visits", ParamAccess::read_write)
        .scalar<std::uint32_t>("nx")
        .scalar<std::uint32_t>("ny")
        .scalar<std::uint32_t>("ox")
        .scalar<std::uint32_t>("oy")
        .scalar<std::uint32_t>("oz")
        .cpu(record, style);
  };
  const std::uint64_t wanted = 4ull * cpu->info().compute_units;
  std::mt19937 random(11);
  for (int round = 0; round < 60; ++round) {
    const int dimensions = 1 + static_cast<int>(random() % 3);
    LaunchGeometry geometry;
    geometry.dimensions = dimensions;
    const auto extent = [&](std::uint64_t most) { return 1 + random() % most; };
    geometry.global = Dim3{extent(dimensions == 1 ? 5000 : 300), dimensions > 1 ? extent(120) : 1,
                           dimensions > 2 ? extent(12) : 1};
    geometry.block =
        Dim3{extent(40), dimensions > 1 ? extent(9) : 1, dimensions > 2 ? extent(3) : 1};
    const Dim3 b = geometry.block, g = geometry.global;
    const Dim3 counts{(g.x + b.x - 1) / b.x, (g.y + b.y - 1) / b.y, (g.z + b.z - 1) / b.z};
    CompileOptions options;
    options.block_offset = Dim3{random() % 5, random() % 5, random() % 5};
    const Dim3 origin{options.block_offset.x * b.x, options.block_offset.y * b.y,
                      options.block_offset.z * b.z};
    for (CpuCalls style : {CpuCalls::any_range, CpuCalls::per_block}) {
      const std::string name = fmt::format(
          "round {}, {} launch of {}x{}x{} in blocks of {}x{}x{}", round,
          style == CpuCalls::any_range ? "any-range" : "per-block", g.x, g.y, g.z, b.x, b.y, b.z);
      auto kernel = cpu->compile(define(style), options);
      DeviceBuffer visits = cpu->allocate(g.volume() * 4);
      const std::vector<std::uint32_t> zeros(g.volume(), 0);
      compute.copy_to_device(visits, 0, zeros.data(), g.volume() * 4).wait();
      calls.clear();
      compute
          .launch(*kernel, geometry,
                  {KernelArg::array<std::uint32_t>(visits),
                   KernelArg::value(static_cast<std::uint32_t>(g.x)),
                   KernelArg::value(static_cast<std::uint32_t>(g.y)),
                   KernelArg::value(static_cast<std::uint32_t>(origin.x)),
                   KernelArg::value(static_cast<std::uint32_t>(origin.y)),
                   KernelArg::value(static_cast<std::uint32_t>(origin.z))})
          .wait();
      std::vector<std::uint32_t> seen(g.volume());
      compute.copy_to_host(seen.data(), visits, 0, g.volume() * 4).wait();
      for (std::uint64_t i = 0; i < seen.size(); ++i)
        ASSERT_EQ(seen[i], 1u) << name << ": index " << i;
      if (style == CpuCalls::per_block) {
        EXPECT_EQ(calls.size(), counts.volume()) << name;
      } else {
        EXPECT_GE(calls.size(), std::min(wanted, counts.volume())) << name;
        if (counts.y * counts.z >= wanted) {
          EXPECT_EQ(calls.size(), counts.y * counts.z) << name;
        }
      }
      for (const Call& call : calls) {
        for (int d = 0; d < 3; ++d) {
          const std::uint64_t first = call.begin[d] - origin[d], last = call.end[d] - origin[d];
          ASSERT_EQ(first % b[d], 0u) << name << ": a call starts inside a block, dimension " << d;
          const std::uint64_t blocks = (last - first + b[d] - 1) / b[d];
          ASSERT_TRUE(last == g[d] || (last - first) % b[d] == 0) << name << ", dimension " << d;
          if (d > 0 || style == CpuCalls::per_block) {
            ASSERT_EQ(blocks, 1u) << name << ", dimension " << d;
          }
        }
      }
    }
  }
}

TEST_F(CpuBackendTest, VirtualBlockOffsetShiftsTheIndices) {
  // One worker's part of a larger launch: blocks 4.. of 8-element blocks, i.e. indices 32..63.
  auto kernel = KernelDefinition("mark")
                    .array<std::uint32_t>("out", ParamAccess::write)
                    .cpu([](const CpuBlock& block) {
                      auto* out = block.array<std::uint32_t>(0);
                      for (auto i = block.begin.x; i < block.end.x; ++i)
                        out[i - 32] = static_cast<std::uint32_t>(i);
                    });
  CompileOptions options;
  options.block_offset = Dim3{4, 0, 0};
  auto compiled = cpu->compile(kernel, options);
  DeviceBuffer out = cpu->allocate(32 * 4);
  compute
      .launch(*compiled, LaunchGeometry{Dim3{32}, Dim3{8}, 1},
              {KernelArg::array<std::uint32_t>(out)})
      .wait();
  std::vector<std::uint32_t> values(32);
  compute.copy_to_host(values.data(), out, 0, 32 * 4).wait();
  for (std::uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(values[i], 32 + i);
}

// Compiled with origins at launch, the launch's block offset and array origins apply.
TEST_F(CpuBackendTest, OriginsAtLaunchReplaceTheCompiledOnes) {
  auto kernel = KernelDefinition("mark_global")
                    .array<std::uint32_t>("out", ParamAccess::write)
                    .cpu([](const CpuBlock& block) {
                      const auto out = block.global_array<std::uint32_t>(0);
                      for (auto i = block.begin.x; i < block.end.x; ++i)
                        out(i) = static_cast<std::uint32_t>(i);
                    });
  CompileOptions options;
  options.origins_at_launch = true;
  options.placements = {ArrayPlacement{Dim3{0, 0, 0}, Dim3{32}}};
  auto compiled = cpu->compile(kernel, options);
  for (std::uint64_t first_block : {4u, 9u}) {
    DeviceBuffer out = cpu->allocate(32 * 4);
    KernelArgs args{KernelArg::array<std::uint32_t>(out)};
    args.origins = LaunchOrigins{Dim3{first_block, 0, 0}, {Dim3{first_block * 8, 0, 0}}};
    compute.launch(*compiled, LaunchGeometry{Dim3{32}, Dim3{8}, 1}, args).wait();
    std::vector<std::uint32_t> values(32);
    compute.copy_to_host(values.data(), out, 0, 32 * 4).wait();
    for (std::uint32_t i = 0; i < 32; ++i)
      EXPECT_EQ(values[i], first_block * 8 + i);
  }
  // A launch without origins is refused naming the kernel.
  DeviceBuffer out = cpu->allocate(32 * 4);
  EXPECT_THROW(compute.launch(*compiled, LaunchGeometry{Dim3{32}, Dim3{8}, 1},
                              {KernelArg::array<std::uint32_t>(out)}),
               KernelLaunchError);
}

TEST_F(CpuBackendTest, CopyOutsideTheBufferIsAnError) {
  DeviceBuffer buffer = cpu->allocate(100);
  char host[200] = {};
  EXPECT_THROW(compute.copy_to_device(buffer, 50, host, 51), DeviceError);
  EXPECT_THROW(compute.copy_to_host(host, buffer, 101, 1), DeviceError);
  DeviceBuffer other = cpu->allocate(10);
  EXPECT_THROW(compute.copy_on_device(other, 0, buffer, 95, 10), DeviceError);
}

TEST_F(CpuBackendTest, KernelWithoutACppImplementationDoesNotCompile) {
  try {
    cpu->compile(KernelDefinition("gpu_only").opencl("__kernel void gpu_only() {}"));
    FAIL() << "expected KernelCompileError";
  } catch (const KernelCompileError& e) {
    EXPECT_EQ(e.kernel(), "gpu_only");
    EXPECT_EQ(e.backend(), "cpu");
    EXPECT_NE(std::string(e.what()).find("no C++ implementation"), std::string::npos);
  }
}

TEST_F(CpuBackendTest, BufferOfAnotherDeviceIsRefusedNamingTheParameter) {
  auto other = make_cpu_device(default_block_runner());
  DeviceBuffer foreign = other->allocate(64);
  auto kernel = cpu->compile(
      KernelDefinition("touch").array<float>("data", ParamAccess::write).cpu([](const CpuBlock&) {
      }));
  try {
    compute.launch(*kernel, LaunchGeometry{Dim3{16}}, {KernelArg::array<float>(foreign)});
    FAIL() << "expected KernelLaunchError";
  } catch (const KernelLaunchError& e) {
    EXPECT_EQ(e.param(), "data");
    EXPECT_NE(std::string(e.what()).find("another device"), std::string::npos);
  }
}

TEST_F(CpuBackendTest, OperationsWaitForTheirEventsAndQueuesOverlap) {
  // A kernel gated behind an event nobody has completed yet; meanwhile the upload queue
  // still runs its copies: copies and kernels are not serialized against each other.
  Event gate = Event::manual();
  std::atomic<bool> kernel_ran{false};
  auto kernel =
      cpu->compile(KernelDefinition("flag").cpu([&](const CpuBlock&) { kernel_ran.store(true); }));
  Event kernel_done = compute.launch(*kernel, LaunchGeometry{Dim3{1}}, {}, std::span(&gate, 1));
  DeviceBuffer buffer = cpu->allocate(1024);
  std::vector<char> data(1024, 7);
  Event upload = cpu->queue(QueueKind::host_to_device).copy_to_device(buffer, 0, data.data(), 1024);
  upload.wait();  // completes although the compute queue is blocked
  EXPECT_FALSE(kernel_done.done());
  EXPECT_FALSE(kernel_ran.load());
  gate.state()->complete();
  kernel_done.wait();
  EXPECT_TRUE(kernel_ran.load());
}

TEST_F(CpuBackendTest, AnIdleComputeQueueRunsOnTheCallingThreadABusyOneInOrder) {
  std::mutex lock;
  std::vector<int> order;
  // Each kernel takes 20 ms: enqueued, launch() returns long before it is done.
  const auto recorder = [&](int mark) {
    return cpu->compile(KernelDefinition("mark").cpu([&, mark](const CpuBlock&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::lock_guard guard(lock);
      order.push_back(mark);
    }));
  };
  auto first = recorder(1), second = recorder(2), third = recorder(3);
  // Idle: the kernel ran before launch() returned.
  EXPECT_TRUE(compute.launch(*first, LaunchGeometry{Dim3{1}}, {}).done());
  // Busy: a launch behind a held one is enqueued and keeps its place although it waits for
  // nothing itself.
  Event gate = Event::manual();
  Event held = compute.launch(*second, LaunchGeometry{Dim3{1}}, {}, std::span(&gate, 1));
  Event behind = compute.launch(*third, LaunchGeometry{Dim3{1}}, {});
  EXPECT_FALSE(behind.done());
  gate.state()->complete();
  behind.wait();
  EXPECT_TRUE(held.done());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  // The copy queues keep their own thread: an idle one still returns before its copy is done.
  Event slow = cpu->queue(QueueKind::host_to_device).launch(*first, LaunchGeometry{Dim3{1}}, {});
  EXPECT_FALSE(slow.done());
  slow.wait();
}

TEST_F(CpuBackendTest, FailedDependencyFailsTheOperationWithoutRunningIt) {
  Event failed = Event::manual();
  failed.state()->complete(std::make_exception_ptr(std::runtime_error("upload failed")));
  bool ran = false;
  auto kernel = cpu->compile(KernelDefinition("never").cpu([&](const CpuBlock&) { ran = true; }));
  Event done = compute.launch(*kernel, LaunchGeometry{Dim3{4}}, {}, std::span(&failed, 1));
  EXPECT_THROW(done.wait(), std::runtime_error);
  EXPECT_FALSE(ran);
  compute.finish();  // the queue keeps working
}

TEST_F(CpuBackendTest, KernelExceptionFailsItsEvent) {
  auto kernel = cpu->compile(KernelDefinition("throws").cpu(
      [](const CpuBlock&) { throw std::out_of_range("bad index"); }));
  EXPECT_THROW(compute.launch(*kernel, LaunchGeometry{Dim3{8}}, {}).wait(), std::out_of_range);
}

TEST_F(CpuBackendTest, LaunchWithoutThreadsIsRefused) {
  auto kernel = cpu->compile(KernelDefinition("empty").cpu([](const CpuBlock&) {}));
  EXPECT_THROW(compute.launch(*kernel, LaunchGeometry{Dim3{0}}, {}), KernelLaunchError);
  EXPECT_THROW(compute.launch(*kernel, LaunchGeometry{Dim3{1}, Dim3{0, 0, 0}, 4}, {}),
               KernelLaunchError);
}

}  // namespace
}  // namespace strata::device
