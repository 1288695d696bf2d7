#pragma once
// Test helpers shared by the device tests: blocking uploads and downloads, and random inputs.

#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include "strata/device/device.hpp"

namespace strata::device::testing {

// A new buffer on `device` holding `values` (waits for the copy).
template <typename T>
DeviceBuffer upload(Device& device, const std::vector<T>& values) {
  DeviceBuffer buffer = device.allocate(values.size() * sizeof(T));
  device.queue(QueueKind::host_to_device)
      .copy_to_device(buffer, 0, values.data(), values.size() * sizeof(T))
      .wait();
  return buffer;
}

// The first `count` elements of `buffer`, copied after the events in `after` (waits).
template <typename T>
std::vector<T> download(Device& device, const DeviceBuffer& buffer, std::size_t count,
                        std::span<const Event> after = {}) {
  std::vector<T> values(count);
  device.queue(QueueKind::device_to_host)
      .copy_to_host(values.data(), buffer, 0, count * sizeof(T), after)
      .wait();
  return values;
}

// `count` floats in [-1, 1), the same for the same seed.
inline std::vector<float> random_floats(std::size_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> out(count);
  for (auto& v : out)
    v = value(engine);
  return out;
}

}  // namespace strata::device::testing
