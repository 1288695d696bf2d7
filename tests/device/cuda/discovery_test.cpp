// CUDA discovery never throws for a missing driver or device; the report says which.

#include <gtest/gtest.h>

#include "strata/device/backends.hpp"

namespace strata::device {
namespace {

TEST(CudaDiscovery, ReportsDevicesOrWhyThereAreNone) {
  EXPECT_TRUE(cuda_built());
  std::string status;
  std::vector<std::unique_ptr<Device>> devices;
  ASSERT_NO_THROW(devices = discover_cuda_devices(Config{}, nullptr, status));
  std::printf("cuda: %s\n", status.c_str());
  if (devices.empty()) {
    EXPECT_TRUE(status.starts_with("no NVIDIA driver: cudaErrorInsufficientDriver (") ||
                status == "no CUDA device" || status.starts_with("CUDA unavailable: "))
        << status;
  } else {
    EXPECT_EQ(status.substr(0, status.find(' ')), std::to_string(devices.size())) << status;
    for (std::size_t i = 0; i < devices.size(); ++i)
      EXPECT_EQ(devices[i]->info().id, "cuda:" + std::to_string(i));
  }
}

TEST(CudaDiscovery, AppearsInTheBackendReports) {
  Config config;
  config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  const DeviceSet set = discover_devices(config);
  bool found = false;
  for (const auto& report : set.reports) {
    if (report.backend != BackendKind::cuda) continue;
    found = true;
    EXPECT_TRUE(report.built);
    EXPECT_TRUE(report.enabled);
    EXPECT_FALSE(report.status.empty());
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace strata::device
