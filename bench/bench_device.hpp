#pragma once
// What the bench programs share to find the CPU and OpenCL devices, move their inputs onto a
// device and their results off it.

#include <cstddef>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/device/backends.hpp"
#include "strata/device/device.hpp"

namespace strata::bench {

// The CPU device (always) and the first OpenCL device (null when there is none).
struct CpuAndOpenCl {
  CpuAndOpenCl() {
    Config config;
    config.section<device::DeviceSettings>().backends = "cpu,opencl";
    set = device::discover_devices(config);
    for (auto& device : set.devices) {
      if (device->info().backend == device::BackendKind::cpu && cpu == nullptr) cpu = device.get();
      if (device->info().backend == device::BackendKind::opencl && opencl == nullptr)
        opencl = device.get();
    }
    if (cpu == nullptr) throw Error("no CPU device");
  }
  device::DeviceSet set;
  device::Device* cpu = nullptr;
  device::Device* opencl = nullptr;
};

inline void copy_to(device::Device& device, const device::DeviceBuffer& buffer, const void* data,
                    std::size_t bytes) {
  device.queue(device::QueueKind::host_to_device).copy_to_device(buffer, 0, data, bytes).wait();
}

template <typename T>
std::vector<T> copy_from(device::Device& device, const device::DeviceBuffer& buffer,
                         std::size_t n) {
  std::vector<T> out(n);
  device.queue(device::QueueKind::device_to_host)
      .copy_to_host(out.data(), buffer, 0, n * sizeof(T))
      .wait();
  return out;
}

}  // namespace strata::bench
