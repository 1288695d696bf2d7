#pragma once
// The CUDA devices of this machine for the `gpu` tests, which skip with discovery's reason
// (e.g. "no NVIDIA driver: cudaErrorInsufficientDriver (...)") where there is none.

#include <gtest/gtest.h>

#include "strata/device/backends.hpp"

namespace strata::device::testing {

inline DeviceSet& cuda_devices() {
  static DeviceSet set = [] {
    Config config;
    config.backends = "cuda";
    config.kernel_cache_dir = "off";
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

template <typename T>
DeviceBuffer upload(Device& device, const std::vector<T>& values) {
  DeviceBuffer buffer = device.allocate(values.size() * sizeof(T));
  device.queue(QueueKind::host_to_device)
      .copy_to_device(buffer, 0, values.data(), values.size() * sizeof(T))
      .wait();
  return buffer;
}

template <typename T>
std::vector<T> download(Device& device, const DeviceBuffer& buffer, std::size_t count,
                        std::span<const Event> after = {}) {
  std::vector<T> values(count);
  device.queue(QueueKind::device_to_host)
      .copy_to_host(values.data(), buffer, 0, count * sizeof(T), after)
      .wait();
  return values;
}

}  // namespace strata::device::testing

// Skips the test, with discovery's reason, when this machine has no CUDA device.
#define STRATA_REQUIRE_CUDA_DEVICE()                                                  \
  do {                                                                                \
    if (::strata::device::testing::cuda_devices().devices.empty())                    \
      GTEST_SKIP() << "no CUDA device: " << ::strata::device::testing::cuda_status(); \
  } while (false)
