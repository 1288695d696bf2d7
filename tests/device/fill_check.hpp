#pragma once
// The check every backend's Queue::fill passes: patterns of 1, 2, 4 and 8 bytes (uniform ones,
// which a byte-wise memset can write, and others) over regions at offsets of one buffer, the
// bytes around each region unchanged; patterns and regions that do not fit are refused.

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "device_transfers.hpp"
#include "strata/device/device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device::testing {

inline void check_fill(Device& device) {
  constexpr std::uint64_t bytes = 8192;
  struct Case {
    std::vector<std::uint8_t> pattern;
    std::uint64_t offset, length;
  };
  const Case cases[] = {
      {{0x5a}, 3, 1001},
      {{0x00, 0x00}, 64, 2},
      {{0x12, 0x34}, 1030, 998},
      {{0x00, 0x00, 0x80, 0x3f}, 2048, 4096},  // 1.0f, a product's identity
      {{0x00, 0x00, 0x00, 0x00}, 6400, 404},   // 0.0f, a sum's identity
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f}, 7000, 8 * 120},  // DBL_MAX
      {{0x77}, 8000, 0},
  };
  std::vector<std::uint8_t> expected(bytes);
  for (std::uint64_t i = 0; i < bytes; ++i)
    expected[i] = static_cast<std::uint8_t>(i * 13 + 1);
  DeviceBuffer buffer = upload(device, expected);
  Queue& compute = device.queue(QueueKind::compute);
  Event last;
  for (const Case& c : cases) {
    for (std::uint64_t i = 0; i < c.length; ++i)
      expected[c.offset + i] = c.pattern[i % c.pattern.size()];
    last = compute.fill(buffer, c.offset, std::as_bytes(std::span(c.pattern)), c.length);
  }
  EXPECT_EQ(download<std::uint8_t>(device, buffer, bytes, std::span(&last, 1)), expected);
  const std::vector<std::uint8_t> three{1, 2, 3}, four{1, 2, 3, 4};
  EXPECT_THROW(compute.fill(buffer, 0, std::as_bytes(std::span(three)), 9), DeviceError)
      << "a 3-byte pattern";
  EXPECT_THROW(compute.fill(buffer, 2, std::as_bytes(std::span(four)), 8), DeviceError)
      << "an offset that is not a multiple of the pattern";
  EXPECT_THROW(compute.fill(buffer, 0, std::as_bytes(std::span(four)), 6), DeviceError)
      << "a length that is not a multiple of the pattern";
  EXPECT_THROW(compute.fill(buffer, bytes - 4, std::as_bytes(std::span(four)), 8), DeviceError)
      << "a region past the buffer's end";
}

}  // namespace strata::device::testing
