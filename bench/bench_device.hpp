#pragma once
// What the bench programs share to move their inputs onto a device and results off it.

#include <cstddef>
#include <vector>

#include "strata/device/device.hpp"

namespace strata::bench {

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
