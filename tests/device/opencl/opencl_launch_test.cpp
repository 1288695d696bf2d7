// Launches: arguments refused before they reach the device, arrays at offsets, geometry
// rounding, virtual-blocks kernels with baked-in offsets or origins at launch, concurrent
// launches of one kernel.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>
#include <vector>

#include "device_transfers.hpp"
#include "opencl_test_device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

using testing::download;
using testing::upload;

KernelDefinition add_kernel() {
  return KernelDefinition("add_one")
      .scalar<std::uint32_t>("n")
      .array<float>("in", ParamAccess::read)
      .array<float>("out", ParamAccess::write)
      .opencl(R"(
__kernel void add_one(uint n, __global const float* in, __global float* out) {
  const size_t i = get_global_id(0);
  if (i < n) out[i] = in[i] + 1.0f;
}
)");
}

// out[i] = in[i - 1] + in[i] + in[i + 1] inside the array, indexed by global positions.
KernelDefinition stencil3() {
  return KernelDefinition("stencil3")
      .scalar<std::uint32_t>("n")
      .array<float>("out", ParamAccess::write)
      .array<float>("in", ParamAccess::read)
      .opencl(R"(
void stencil3(uint3 block, uint n, __global float* out, __global const float* in) {
  const size_t i = block.x * get_local_size(0) + get_local_id(0);
  if (i == 0 || i + 1 >= n) return;
  out[i] = in[i - 1] + in[i] + in[i + 1];
}
)",
              KernelStyle::virtual_blocks);
}

std::string refusal(Device& device, const CompiledKernel& kernel, const KernelArgs& args) {
  try {
    device.queue(QueueKind::compute).launch(kernel, LaunchGeometry{Dim3{16}}, args);
  } catch (const KernelLaunchError& error) {
    return error.param() + "|" + error.what();
  }
  return "accepted";
}

TEST(OpenClLaunch, BadArgumentsAreRefusedNamingTheParameter) {
  STRATA_REQUIRE_OPENCL(device);
  auto kernel = device.compile(add_kernel());
  DeviceBuffer a = device.allocate(64), b = device.allocate(64);
  const std::uint32_t n = 16;

  std::string why = refusal(device, *kernel, {KernelArg::value(n), KernelArg::array<float>(a)});
  EXPECT_NE(why.find("takes 3 arguments"), std::string::npos) << why;

  why = refusal(device, *kernel,
                {KernelArg::value(1.5f), KernelArg::array<float>(a), KernelArg::array<float>(b)});
  EXPECT_EQ(why.substr(0, why.find('|')), "n") << why;
  EXPECT_NE(why.find("expects element type u32, got f32"), std::string::npos) << why;

  why =
      refusal(device, *kernel,
              {KernelArg::value(n), KernelArg::array<std::int32_t>(a), KernelArg::array<float>(b)});
  EXPECT_EQ(why.substr(0, why.find('|')), "in") << why;

  auto cpu = make_cpu_device(default_block_runner());
  DeviceBuffer foreign = cpu->allocate(64);
  why =
      refusal(device, *kernel,
              {KernelArg::value(n), KernelArg::array<float>(a), KernelArg::array<float>(foreign)});
  EXPECT_EQ(why.substr(0, why.find('|')), "out") << why;
  EXPECT_NE(why.find("another device (cpu)"), std::string::npos) << why;
}

TEST(OpenClLaunch, AKernelCompiledForAnotherDeviceIsRefused) {
  STRATA_REQUIRE_OPENCL(device);
  auto cpu = make_cpu_device(default_block_runner());
  auto cpu_kernel = cpu->compile(KernelDefinition("k").cpu([](const CpuBlock&) {}));
  EXPECT_THROW(device.queue(QueueKind::compute).launch(*cpu_kernel, LaunchGeometry{Dim3{1}}, {}),
               KernelLaunchError);
}

TEST(OpenClLaunch, ArraysAtAnyElementOffsetArePassedOthersAreRefused) {
  STRATA_REQUIRE_OPENCL(device);
  auto* opencl = &device;
  auto kernel = opencl->compile(add_kernel());
  constexpr std::uint32_t n = 1024;
  std::vector<float> input(n);
  std::iota(input.begin(), input.end(), 0.0f);
  DeviceBuffer in = upload(*opencl, input);
  // Elements 257.. of `in` into elements 3.. and 515.. of `out` (offsets of 1028, 12 and 2060 B:
  // no driver's sub-buffer alignment; the kernel gets the buffer and an element offset).
  constexpr std::uint32_t count = 100;
  for (const std::uint32_t target : {3u, 515u}) {
    DeviceBuffer out = upload(*opencl, std::vector<float>(n, -1.0f));
    Event done = opencl->queue(QueueKind::compute)
                     .launch(*kernel, LaunchGeometry{Dim3{count}, Dim3{0, 0, 0}, 1},
                             {KernelArg::value(count), KernelArg::array<float>(in, 257),
                              KernelArg::array<float>(out, target)});
    const auto result = download<float>(*opencl, out, n, std::span(&done, 1));
    for (std::uint32_t i = 0; i < n; ++i) {
      const float expected =
          i >= target && i < target + count ? static_cast<float>(i - target + 257) + 1.0f : -1.0f;
      ASSERT_EQ(result[i], expected) << "element " << i << ", output at " << target;
    }
  }
  const std::string why =
      refusal(device, *kernel,
              {KernelArg::value(count), KernelArg::array_of(in, ElementType::f32, 6),
               KernelArg::array<float>(in)});
  EXPECT_EQ(why.substr(0, why.find('|')), "in") << why;
  EXPECT_NE(why.find("not a multiple of the element size"), std::string::npos) << why;
}

// A source whose declaration is not found (its name made by a macro) compiles without array
// offsets: an array at an offset is then refused, not passed from its buffer's start.
TEST(OpenClLaunch, AProgramWithoutArrayOffsetsRefusesArraysAtAnOffset) {
  STRATA_REQUIRE_OPENCL(device);
  auto kernel = device.compile(KernelDefinition("add_one")
                                   .scalar<std::uint32_t>("n")
                                   .array<float>("in", ParamAccess::read)
                                   .array<float>("out", ParamAccess::write)
                                   .opencl(R"(
#define ENTRY add_one
__kernel void ENTRY(uint n, __global const float* in, __global float* out) {
  const size_t i = get_global_id(0);
  if (i < n) out[i] = in[i] + 1.0f;
}
)"));
  constexpr std::uint32_t n = 64;
  DeviceBuffer in = upload(device, std::vector<float>(n, 1.0f));
  DeviceBuffer out = upload(device, std::vector<float>(n, 0.0f));
  Event done =
      device.queue(QueueKind::compute)
          .launch(*kernel, LaunchGeometry{Dim3{n}},
                  {KernelArg::value(n), KernelArg::array<float>(in), KernelArg::array<float>(out)});
  EXPECT_EQ(download<float>(device, out, n, std::span(&done, 1)), std::vector<float>(n, 2.0f));
  const std::string why = refusal(
      device, *kernel,
      {KernelArg::value(n / 2), KernelArg::array<float>(in, 8), KernelArg::array<float>(out)});
  EXPECT_EQ(why.substr(0, why.find('|')), "in") << why;
  EXPECT_NE(why.find("takes no array offsets"), std::string::npos) << why;
}

TEST(OpenClLaunch, GlobalSizesRoundUpToWholeBlocks) {
  STRATA_REQUIRE_OPENCL(device);
  auto kernel = device.compile(add_kernel());
  constexpr std::uint32_t n = 1000;  // not a multiple of 64: the kernel's bounds check matters
  DeviceBuffer in = upload(device, std::vector<float>(n, 1.0f));
  DeviceBuffer out = upload(device, std::vector<float>(n, 0.0f));
  Event done =
      device.queue(QueueKind::compute)
          .launch(*kernel, LaunchGeometry{Dim3{n}, Dim3{64}, 1},
                  {KernelArg::value(n), KernelArg::array<float>(in), KernelArg::array<float>(out)});
  EXPECT_EQ(download<float>(device, out, n, std::span(&done, 1)), std::vector<float>(n, 2.0f));
  EXPECT_THROW(
      device.queue(QueueKind::compute)
          .launch(*kernel, LaunchGeometry{Dim3{n}, Dim3{64}, 4},
                  {KernelArg::value(n), KernelArg::array<float>(in), KernelArg::array<float>(out)}),
      KernelLaunchError);
}

// The lightning paper's ported stencil (§3.5): the function takes the virtual block index and
// indexes global positions; Strata bakes in which blocks this worker runs and where its arrays'
// regions start.
TEST(OpenClLaunch, VirtualBlocksComputeTheirRegionWithBakedInOffsets) {
  STRATA_REQUIRE_OPENCL(device);
  const KernelDefinition stencil = stencil3();
  // The global array has 1024 elements in blocks of 64; this worker runs blocks 4..7 (elements
  // 256..511) and holds `out` for exactly those, `in` with one halo element on either side.
  CompileOptions worker;
  worker.block_offset = Dim3{4, 0, 0};
  worker.placements = {ArrayPlacement{Dim3{256, 0, 0}, Dim3{256}},
                       ArrayPlacement{Dim3{255, 0, 0}, Dim3{258}}};
  auto kernel = device.compile(stencil, worker);
  std::vector<float> in_region(258);
  std::iota(in_region.begin(), in_region.end(), 255.0f);  // in[g] = g globally
  DeviceBuffer in = upload(device, in_region);
  DeviceBuffer out = upload(device, std::vector<float>(256, 0.0f));
  Event done = device.queue(QueueKind::compute)
                   .launch(*kernel, LaunchGeometry{Dim3{256}, Dim3{64}, 1},
                           {KernelArg::value(std::uint32_t{1024}), KernelArg::array<float>(out),
                            KernelArg::array<float>(in)});
  const auto result = download<float>(device, out, 256, std::span(&done, 1));
  for (std::uint32_t k = 0; k < 256; ++k)
    ASSERT_EQ(result[k], 3.0f * static_cast<float>(256 + k)) << "local element " << k;
}

// One program compiled with origins at launch serves two workers' regions of the same extents:
// each launch gives its block offset and its arrays' origins.
TEST(OpenClLaunch, VirtualBlocksTakeTheirOriginsAtLaunch) {
  STRATA_REQUIRE_OPENCL(device);
  const KernelDefinition stencil = stencil3();
  CompileOptions shape;
  shape.origins_at_launch = true;
  shape.placements = {ArrayPlacement{Dim3{0, 0, 0}, Dim3{256}},
                      ArrayPlacement{Dim3{0, 0, 0}, Dim3{258}}};
  auto kernel = device.compile(stencil, shape);
  for (std::uint64_t first_block : {4u, 8u}) {  // elements 256..511, then 512..767
    const std::uint64_t lo = first_block * 64;
    std::vector<float> in_region(258);
    std::iota(in_region.begin(), in_region.end(), static_cast<float>(lo - 1));  // in[g] = g
    DeviceBuffer in = upload(device, in_region);
    DeviceBuffer out = upload(device, std::vector<float>(256, 0.0f));
    KernelArgs args{KernelArg::value(std::uint32_t{1024}), KernelArg::array<float>(out),
                    KernelArg::array<float>(in)};
    args.origins = LaunchOrigins{Dim3{first_block, 0, 0}, {Dim3{lo, 0, 0}, Dim3{lo - 1, 0, 0}}};
    Event done = device.queue(QueueKind::compute)
                     .launch(*kernel, LaunchGeometry{Dim3{256}, Dim3{64}, 1}, args);
    const auto result = download<float>(device, out, 256, std::span(&done, 1));
    for (std::uint32_t k = 0; k < 256; ++k)
      ASSERT_EQ(result[k], 3.0f * static_cast<float>(lo + k)) << "block " << first_block << ", "
                                                              << "local element " << k;
  }
}

TEST(OpenClLaunch, TwoDimensionalVirtualBlocksUseTheStrideConstants) {
  STRATA_REQUIRE_OPENCL(device);
  auto label = KernelDefinition("label")
                   .array<float>("m", ParamAccess::write, 2)
                   .opencl(R"(
void label(uint3 block, __global float* m) {
  const size_t col = block.x * get_local_size(0) + get_local_id(0);
  const size_t row = block.y * get_local_size(1) + get_local_id(1);
  m[row * STRATA_STRIDE_m_0 + col * STRATA_STRIDE_m_1] = (float)(row * 100 + col);
}
)",
                           KernelStyle::virtual_blocks);
  // A 16x16 matrix in 4x4 blocks; this worker runs block columns 1..2 and rows 2..3, i.e.
  // rows 8..15 and columns 4..11, and holds just that 8x8 region.
  CompileOptions worker;
  worker.block_offset = Dim3{1, 2, 0};
  worker.placements = {ArrayPlacement{Dim3{8, 4, 0}, Dim3{8, 8}}};
  auto kernel = device.compile(label, worker);
  DeviceBuffer m = upload(device, std::vector<float>(64, -1.0f));
  Event done =
      device.queue(QueueKind::compute)
          .launch(*kernel, LaunchGeometry{Dim3{8, 8}, Dim3{4, 4}, 2}, {KernelArg::array<float>(m)});
  const auto result = download<float>(device, m, 64, std::span(&done, 1));
  for (std::uint32_t r = 0; r < 8; ++r) {
    for (std::uint32_t c = 0; c < 8; ++c)
      ASSERT_EQ(result[r * 8 + c], static_cast<float>((8 + r) * 100 + 4 + c)) << r << "," << c;
  }
}

TEST(OpenClLaunch, ConcurrentLaunchesOfOneKernelKeepTheirArguments) {
  STRATA_REQUIRE_OPENCL(device);
  auto kernel = device.compile(add_kernel());
  constexpr std::uint32_t n = 256;
  constexpr int threads = 4;
  std::vector<DeviceBuffer> ins, outs;
  for (int t = 0; t < threads; ++t) {
    ins.push_back(upload(device, std::vector<float>(n, static_cast<float>(t * 10))));
    outs.push_back(device.allocate(n * sizeof(float)));
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        device.queue(QueueKind::compute)
            .launch(*kernel, LaunchGeometry{Dim3{n}},
                    {KernelArg::value(n), KernelArg::array<float>(ins[t]),
                     KernelArg::array<float>(outs[t])});
      }
    });
  }
  for (auto& worker : workers)
    worker.join();
  device.queue(QueueKind::compute).finish();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(download<float>(device, outs[t], n), std::vector<float>(n, t * 10.0f + 1.0f));
}

}  // namespace
}  // namespace strata::device
