// Discovery through the ICD loader and the opencl_platform / _device_type / _device settings.
#include <gtest/gtest.h>

#include "opencl_test_device.hpp"

namespace strata::device {
namespace {

using testing::discover;

TEST(OpenClDiscovery, FindsADeviceAndDescribesIt) {
  ASSERT_TRUE(opencl_built());
  std::string status;
  const auto devices = discover(Config{}, status);
  if (devices.empty()) GTEST_SKIP() << "no OpenCL device: " << status;
  const DeviceInfo& info = devices.front()->info();
  EXPECT_EQ(info.backend, BackendKind::opencl);
  EXPECT_EQ(info.id, "opencl:0:0");
  EXPECT_FALSE(info.name.empty());
  EXPECT_FALSE(info.platform.empty());
  EXPECT_GT(info.memory_bytes, 0u);
  EXPECT_GT(info.compute_units, 0u);
  EXPECT_GT(info.max_block_threads, 0u);
  EXPECT_NE(status.find(devices.size() == 1 ? "1 device: " : " devices: "), std::string::npos)
      << status;
  EXPECT_NE(status.find(info.platform + " / " + info.name), std::string::npos) << status;
}

TEST(OpenClDiscovery, APlatformThatMatchesNothingListsTheAvailableOnes) {
  std::string status;
  const auto all = discover(Config{}, status);
  if (all.empty()) GTEST_SKIP() << "no OpenCL device: " << status;
  Config config;
  config.section<device::DeviceSettings>().opencl_platform = "No Such Platform";
  const auto none = discover(config, status);
  EXPECT_TRUE(none.empty());
  EXPECT_NE(status.find("no platform matched \"No Such Platform\""), std::string::npos) << status;
  EXPECT_NE(status.find("available: \"" + all.front()->info().platform + "\""), std::string::npos)
      << status;
}

TEST(OpenClDiscovery, PlatformSubstringDeviceIndexAndNameSelect) {
  std::string status;
  const auto all = discover(Config{}, status);
  if (all.empty()) GTEST_SKIP() << "no OpenCL device: " << status;
  const DeviceInfo& first = all.front()->info();
  Config config;
  config.section<device::DeviceSettings>().opencl_platform = first.platform.substr(0, 4);
  config.section<device::DeviceSettings>().opencl_device = "0";
  auto chosen = discover(config, status);
  ASSERT_FALSE(chosen.empty()) << status;
  EXPECT_EQ(chosen.front()->info().name, first.name);

  config.section<device::DeviceSettings>().opencl_device = first.name.substr(first.name.size() / 2);
  chosen = discover(config, status);
  ASSERT_FALSE(chosen.empty()) << status;
  EXPECT_EQ(chosen.front()->info().name, first.name);

  config.section<device::DeviceSettings>().opencl_device = "no such device";
  EXPECT_TRUE(discover(config, status).empty());
  EXPECT_NE(status.find("matching \"no such device\""), std::string::npos) << status;
}

TEST(OpenClDiscovery, DeviceTypeFilters) {
  std::string status;
  const auto all = discover(Config{}, status);
  if (all.empty()) GTEST_SKIP() << "no OpenCL device: " << status;
  Config config;
  config.section<device::DeviceSettings>().opencl_device_type =
      "accelerator";  // PoCL's CPU device is no accelerator
  const auto accelerators = discover(config, status);
  if (accelerators.empty()) {
    EXPECT_NE(status.find("no accelerator device"), std::string::npos) << status;
  }
  config.section<device::DeviceSettings>().opencl_device_type =
      all.front()->info().host_memory ? "cpu" : "all";
  EXPECT_FALSE(discover(config, status).empty()) << status;
}

TEST(OpenClDiscovery, DiscoverDevicesReportsTheBackend) {
  Config config;
  config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  config.section<device::DeviceSettings>().backends = "opencl";
  const DeviceSet set = discover_devices(config);
  for (const auto& report : set.reports) {
    if (report.backend != BackendKind::opencl) continue;
    EXPECT_TRUE(report.built);
    EXPECT_TRUE(report.enabled);
    EXPECT_FALSE(report.status.empty());
  }
}

}  // namespace
}  // namespace strata::device
