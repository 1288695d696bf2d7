#pragma once
// The CUDA devices of this machine for the `gpu` tests, which skip with discovery's reason
// (e.g. "no NVIDIA driver: cudaErrorInsufficientDriver (...)") where there is none.

#include <gtest/gtest.h>

#include "device_transfers.hpp"
#include "strata/device/backends.hpp"

namespace strata::device::testing {

inline DeviceSet& cuda_devices() {
  static DeviceSet set = [] {
    Config config;
    config.section<device::DeviceSettings>().backends = "cuda";
    config.section<device::DeviceSettings>().kernel_cache_dir = "off";
    return discover_devices(config);
  }();
  return set;
}

inline std::string cuda_status() {
  for (const auto& report : cuda_devices().reports)
    if (report.backend == BackendKind::cuda) return report.status;
  return "no CUDA report";
}

inline Device& gpu() {
  return *cuda_devices().devices.front();
}

}  // namespace strata::device::testing

// Skips the test, with discovery's reason, when this machine has no CUDA device.
#define STRATA_REQUIRE_CUDA_DEVICE()                                                  \
  do {                                                                                \
    if (::strata::device::testing::cuda_devices().devices.empty())                    \
      GTEST_SKIP() << "no CUDA device: " << ::strata::device::testing::cuda_status(); \
  } while (false)
