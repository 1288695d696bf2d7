// Copies host to device, device to host and on the device; bounds and ownership checks.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "opencl_test_device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

std::vector<std::uint32_t> iota(std::size_t count, std::uint32_t first) {
  std::vector<std::uint32_t> values(count);
  std::iota(values.begin(), values.end(), first);
  return values;
}

TEST(OpenClCopies, RoundTripThroughEveryCopyQueue) {
  STRATA_REQUIRE_OPENCL(device);
  constexpr std::size_t n = 1 << 16;
  const auto input = iota(n, 7);
  DeviceBuffer a = device.allocate(n * 4);
  DeviceBuffer b = device.allocate(n * 4);
  Event up = device.queue(QueueKind::host_to_device).copy_to_device(a, 0, input.data(), n * 4);
  Event across =
      device.queue(QueueKind::compute).copy_on_device(b, 0, a, 0, n * 4, std::span(&up, 1));
  std::vector<std::uint32_t> output(n, 0);
  device.queue(QueueKind::device_to_host)
      .copy_to_host(output.data(), b, 0, n * 4, std::span(&across, 1))
      .wait();
  EXPECT_EQ(output, input);
}

TEST(OpenClCopies, OffsetsAddressPartsOfABuffer) {
  STRATA_REQUIRE_OPENCL(device);
  const auto input = iota(100, 0);
  DeviceBuffer buffer = device.allocate(400);
  Queue& up = device.queue(QueueKind::host_to_device);
  up.copy_to_device(buffer, 0, input.data(), 400);
  up.copy_to_device(buffer, 40, input.data() + 90, 40);  // in order: overwrites 10..19
  up.finish();
  device.queue(QueueKind::compute).copy_on_device(buffer, 200, buffer, 0, 80, {}).wait();
  std::vector<std::uint32_t> output(100);
  device.queue(QueueKind::device_to_host).copy_to_host(output.data(), buffer, 0, 400).wait();
  for (std::uint32_t i = 0; i < 100; ++i) {
    std::uint32_t expected = i;
    if (i >= 10 && i < 20) expected = i + 80;
    if (i >= 50 && i < 70) expected = i - 50 >= 10 && i - 50 < 20 ? i - 50 + 80 : i - 50;
    EXPECT_EQ(output[i], expected) << "element " << i;
  }
}

TEST(OpenClCopies, OutOfBoundsCopiesAreRefusedNamingDeviceAndOperation) {
  STRATA_REQUIRE_OPENCL(device);
  DeviceBuffer buffer = device.allocate(64);
  std::vector<char> host(128);
  try {
    device.queue(QueueKind::host_to_device).copy_to_device(buffer, 32, host.data(), 64);
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(device.info().id), std::string::npos) << what;
    EXPECT_NE(what.find("copy to device"), std::string::npos) << what;
    EXPECT_NE(what.find("64 B at offset 32"), std::string::npos) << what;
  }
  EXPECT_THROW(device.queue(QueueKind::device_to_host).copy_to_host(host.data(), buffer, 65, 0),
               DeviceError);
  EXPECT_THROW(device.queue(QueueKind::compute).copy_on_device(buffer, 0, buffer, 8, 16, {}),
               DeviceError);  // overlapping regions
}

TEST(OpenClCopies, BuffersOfAnotherDeviceAreRefused) {
  STRATA_REQUIRE_OPENCL(device);
  auto cpu = make_cpu_device(default_block_runner());
  DeviceBuffer foreign = cpu->allocate(64);
  std::vector<char> host(64);
  try {
    device.queue(QueueKind::device_to_host).copy_to_host(host.data(), foreign, 0, 64);
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find("another device (cpu)"), std::string::npos)
        << error.what();
  }
}

TEST(OpenClCopies, ZeroByteCopiesCompleteInOrder) {
  STRATA_REQUIRE_OPENCL(device);
  DeviceBuffer buffer = device.allocate(16);
  device.queue(QueueKind::host_to_device).copy_to_device(buffer, 16, nullptr, 0).wait();
}

TEST(OpenClCopies, PinnedHostBuffersWork) {
  STRATA_REQUIRE_OPENCL(device);
  constexpr std::size_t n = 4096;
  HostBuffer pinned = device.allocate_host(n * 4);
  ASSERT_NE(pinned.data(), nullptr);
  auto* values = static_cast<std::uint32_t*>(pinned.data());
  std::iota(values, values + n, 3u);
  DeviceBuffer buffer = device.allocate(n * 4);
  device.queue(QueueKind::host_to_device).copy_to_device(buffer, 0, values, n * 4).wait();
  std::vector<std::uint32_t> output(n);
  device.queue(QueueKind::device_to_host).copy_to_host(output.data(), buffer, 0, n * 4).wait();
  EXPECT_EQ(output, std::vector<std::uint32_t>(values, values + n));
}

TEST(OpenClCopies, ImpossibleAllocationsNameDeviceAndSize) {
  STRATA_REQUIRE_OPENCL(device);
  const std::uint64_t too_big = device.info().max_allocation_bytes + 1;
  try {
    device.allocate(too_big);
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(device.info().id), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(too_big) + " B"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace strata::device
