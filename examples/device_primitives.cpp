// The device primitives on every device this machine has (docs/devices.md): a million (key,
// value) pairs sorted by key, the pairs whose key is even kept, and a running sum of the kept
// values — each checked against the host's answer.

#include "strata/primitives/device_primitives.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "strata/device/backends.hpp"

using namespace strata;
using namespace strata::device;
using strata::primitives::DevicePrimitives;
using strata::primitives::span_of;

template <typename T>
DeviceBuffer upload(Device& device, const std::vector<T>& values) {
  DeviceBuffer buffer = device.allocate(values.size() * sizeof(T));
  device.queue(QueueKind::host_to_device)
      .copy_to_device(buffer, 0, values.data(), values.size() * sizeof(T))
      .wait();
  return buffer;
}

template <typename T>
std::vector<T> download(Device& device, const DeviceBuffer& buffer, std::size_t count) {
  std::vector<T> values(count);
  device.queue(QueueKind::device_to_host)
      .copy_to_host(values.data(), buffer, 0, count * sizeof(T))
      .wait();
  return values;
}

int main() {
  constexpr std::size_t n = 1'000'000;
  std::mt19937 engine(42);
  std::vector<std::uint32_t> keys(n), values(n);
  for (auto& key : keys)
    key = engine() % 100'000;
  std::iota(values.begin(), values.end(), 0u);
  // The host's answer: the values of the even keys in key order (stable), and their sum.
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
  std::vector<std::uint64_t> expected;
  for (std::uint32_t i : order)
    if (keys[i] % 2 == 0) expected.push_back(values[i]);
  std::partial_sum(expected.begin(), expected.end(), expected.begin());

  DeviceSet devices = discover_devices(Config{});
  int failures = 0;
  for (const auto& device : devices.devices) {
    DevicePrimitives primitives(*device);
    DeviceBuffer dkeys = upload(*device, keys);
    DeviceBuffer dvalues = upload(*device, values);
    primitives.radix_sort(span_of<std::uint32_t>(dkeys, n), span_of<std::uint32_t>(dvalues, n))
        .wait();
    // Flags from the sorted keys (on the host here; a kernel would make them on the device).
    const auto sorted = download<std::uint32_t>(*device, dkeys, n);
    std::vector<std::uint8_t> even(n);
    std::transform(sorted.begin(), sorted.end(), even.begin(),
                   [](std::uint32_t key) { return key % 2 == 0 ? 1 : 0; });
    DeviceBuffer dflags = upload(*device, even);
    DeviceBuffer dkept = device->allocate(n * sizeof(std::uint32_t));
    DeviceBuffer dcount = device->allocate(sizeof(std::uint64_t));
    primitives
        .compact(span_of<std::uint32_t>(dvalues, n), span_of<std::uint8_t>(dflags, n),
                 span_of<std::uint32_t>(dkept, n), span_of<std::uint64_t>(dcount, 1))
        .wait();
    const std::uint64_t kept = download<std::uint64_t>(*device, dcount, 1)[0];
    // A running sum of the kept values, in 64 bits.
    const auto kept_values = download<std::uint32_t>(*device, dkept, kept);
    DeviceBuffer dwide =
        upload(*device, std::vector<std::uint64_t>(kept_values.begin(), kept_values.end()));
    primitives
        .inclusive_scan(span_of<std::uint64_t>(dwide, kept), span_of<std::uint64_t>(dwide, kept))
        .wait();
    const bool right = download<std::uint64_t>(*device, dwide, kept) == expected;
    std::printf("%-12s sorted %zu pairs, kept %llu, running sum %s\n", device->info().id.c_str(), n,
                static_cast<unsigned long long>(kept), right ? "right" : "WRONG");
    failures += right ? 0 : 1;
  }
  return failures;
}
