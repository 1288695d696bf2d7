// Every discovered device (CPU always; OpenCL on PoCL in CI; CUDA where a GPU exists) runs the
// four conformance kernels and fills, and must match a host reference.

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "conformance_kernels.hpp"
#include "device_transfers.hpp"
#include "fill_check.hpp"
#include "strata/device/backends.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

using testing::block_sum_kernel;
using testing::download;
using testing::matmul_kernel;
using testing::matmul_tile;
using testing::random_floats;
using testing::reduction_block;
using testing::stencil_2d_kernel;
using testing::upload;
using testing::vector_add_kernel;

DeviceSet& devices() {
  static DeviceSet set = [] {
    Config config;
    config.section<device::DeviceSettings>().kernel_cache_dir = "off";
    return discover_devices(config);
  }();
  return set;
}

TEST(Conformance, AtLeastTheCpuDeviceIsDiscovered) {
  ASSERT_FALSE(devices().devices.empty());
  for (const auto& report : devices().reports)
    std::printf("backend %s: %s\n", to_string(report.backend), report.status.c_str());
}

TEST(Conformance, VectorAddMatchesTheReference) {
  constexpr std::uint32_t n = 100'003;  // not a multiple of any block size
  const auto a = random_floats(n, 1);
  const auto b = random_floats(n, 2);
  for (auto& device : devices().devices) {
    SCOPED_TRACE(device->info().id);
    auto kernel = device->compile(vector_add_kernel());
    DeviceBuffer da = upload(*device, a), db = upload(*device, b);
    DeviceBuffer dc = device->allocate(n * sizeof(float));
    LaunchGeometry geometry{Dim3{(n + 127) / 128 * 128}, Dim3{128}, 1};
    Event done = device->queue(QueueKind::compute)
                     .launch(*kernel, geometry,
                             {KernelArg::value(n), KernelArg::array<float>(da),
                              KernelArg::array<float>(db), KernelArg::array<float>(dc)});
    const auto c = download<float>(*device, dc, n, std::span(&done, 1));
    for (std::uint32_t i = 0; i < n; ++i)
      ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
  }
}

// Regions of one buffer copied into another: rows apart, slices apart (a multiple of the row
// pitch and not), single-element rows, as box copies of chunks make them.
TEST(Conformance, RectangularRegionsCopyOnTheDevice) {
  constexpr std::uint64_t bytes = 4096;
  std::vector<std::uint8_t> source(bytes);
  for (std::uint64_t i = 0; i < bytes; ++i)
    source[i] = static_cast<std::uint8_t>(i * 7 + 3);
  struct Case {
    BufferRect from, to;
    RectExtent extent;
  };
  const Case cases[] = {
      {{100, 0, 0}, {7, 0, 0}, {300, 1, 1}},       // a plain range
      {{16, 64, 0}, {400, 24, 0}, {24, 10, 1}},    // rows 64 apart into dense rows
      {{5, 40, 400}, {1000, 12, 36}, {12, 3, 4}},  // slices a multiple of the rows
      {{3, 40, 130}, {2000, 8, 50}, {8, 3, 5}},    // slices not a multiple of the rows
      {{0, 12, 48}, {3000, 4, 4 * 5}, {4, 5, 2}},  // single elements, strided
  };
  for (auto& device : devices().devices) {
    SCOPED_TRACE(device->info().id);
    DeviceBuffer from = upload(*device, source);
    DeviceBuffer to = upload(*device, std::vector<std::uint8_t>(bytes, 0));
    Queue& compute = device->queue(QueueKind::compute);
    std::vector<std::uint8_t> expected(bytes, 0);
    Event last;
    for (const Case& c : cases) {
      for (std::uint64_t z = 0; z < c.extent.depth; ++z)
        for (std::uint64_t y = 0; y < c.extent.height; ++y)
          for (std::uint64_t x = 0; x < c.extent.width; ++x)
            expected[c.to.offset + z * c.to.slice_pitch + y * c.to.row_pitch + x] =
                source[c.from.offset + z * c.from.slice_pitch + y * c.from.row_pitch + x];
      last = compute.copy_rect_on_device(to, c.to, from, c.from, c.extent);
    }
    EXPECT_EQ(download<std::uint8_t>(*device, to, bytes, std::span(&last, 1)), expected);
    EXPECT_THROW(compute.copy_rect_on_device(to, {4000, 100, 0}, from, {0, 100, 0}, {10, 2, 1}),
                 DeviceError)
        << "a region past the buffer's end";
  }
}

TEST(Conformance, FillWritesThePatternOverTheRegionAndNothingElse) {
  for (auto& device : devices().devices) {
    SCOPED_TRACE(device->info().id);
    testing::check_fill(*device);
  }
}

TEST(Conformance, BlockReductionMatchesTheReference) {
  constexpr std::uint32_t n = 1'000'000;
  std::vector<std::uint32_t> input(n);
  std::mt19937 engine(3);
  for (auto& v : input)
    v = engine() % 1000;
  const std::uint64_t expected = std::accumulate(input.begin(), input.end(), std::uint64_t{0});
  const std::uint32_t blocks = (n + reduction_block - 1) / reduction_block;
  for (auto& device : devices().devices) {
    SCOPED_TRACE(device->info().id);
    auto kernel = device->compile(block_sum_kernel());
    DeviceBuffer din = upload(*device, input);
    DeviceBuffer partial = device->allocate(blocks * sizeof(std::uint64_t));
    LaunchGeometry geometry{Dim3{std::uint64_t{blocks} * reduction_block}, Dim3{reduction_block},
                            1};
    Event done = device->queue(QueueKind::compute)
                     .launch(*kernel, geometry,
                             {KernelArg::value(n), KernelArg::array<std::uint32_t>(din),
                              KernelArg::array<std::uint64_t>(partial)});
    const auto sums = download<std::uint64_t>(*device, partial, blocks, std::span(&done, 1));
    EXPECT_EQ(std::accumulate(sums.begin(), sums.end(), std::uint64_t{0}), expected);
  }
}

TEST(Conformance, Stencil2dMatchesTheReference) {
  constexpr std::uint32_t w = 300, h = 201;
  const auto in = random_floats(std::size_t{w} * h, 4);
  std::vector<float> expected(in);
  for (std::uint32_t y = 1; y + 1 < h; ++y)
    for (std::uint32_t x = 1; x + 1 < w; ++x) {
      const std::size_t i = std::size_t{y} * w + x;
      expected[i] = (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]) / 5.0f;
    }
  for (auto& device : devices().devices) {
    SCOPED_TRACE(device->info().id);
    auto kernel = device->compile(stencil_2d_kernel());
    DeviceBuffer din = upload(*device, in);
    DeviceBuffer dout = device->allocate(in.size() * sizeof(float));
    LaunchGeometry geometry{Dim3{(w + 15) / 16 * 16, (h + 15) / 16 * 16}, Dim3{16, 16}, 2};
    Event done = device->queue(QueueKind::compute)
                     .launch(*kernel, geometry,
                             {KernelArg::value(w), KernelArg::value(h),
                              KernelArg::array<float>(din), KernelArg::array<float>(dout)});
    const auto out = download<float>(*device, dout, in.size(), std::span(&done, 1));
    for (std::size_t i = 0; i < out.size(); ++i)
      ASSERT_NEAR(out[i], expected[i], 1e-6f) << "element " << i;
  }
}

TEST(Conformance, TiledMatmulMatchesTheReference) {
  constexpr std::uint32_t n = 100;  // not a multiple of the tile
  const auto a = random_floats(std::size_t{n} * n, 5);
  const auto b = random_floats(std::size_t{n} * n, 6);
  std::vector<double> expected(std::size_t{n} * n, 0.0);
  for (std::uint32_t r = 0; r < n; ++r)
    for (std::uint32_t k = 0; k < n; ++k)
      for (std::uint32_t c = 0; c < n; ++c)
        expected[r * n + c] += double{a[r * n + k]} * b[k * n + c];
  for (auto& device : devices().devices) {
    SCOPED_TRACE(device->info().id);
    auto kernel = device->compile(matmul_kernel());
    DeviceBuffer da = upload(*device, a), db = upload(*device, b);
    DeviceBuffer dc = device->allocate(a.size() * sizeof(float));
    const std::uint64_t padded = (n + matmul_tile - 1) / matmul_tile * matmul_tile;
    LaunchGeometry geometry{Dim3{padded, padded}, Dim3{matmul_tile, matmul_tile}, 2};
    Event done = device->queue(QueueKind::compute)
                     .launch(*kernel, geometry,
                             {KernelArg::value(n), KernelArg::array<float>(da),
                              KernelArg::array<float>(db), KernelArg::array<float>(dc)});
    const auto c = download<float>(*device, dc, a.size(), std::span(&done, 1));
    for (std::size_t i = 0; i < c.size(); ++i)
      ASSERT_NEAR(c[i], expected[i], 1e-4) << "element " << i;
  }
}

}  // namespace
}  // namespace strata::device
