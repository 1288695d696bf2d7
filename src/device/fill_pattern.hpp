#pragma once
// The pattern of a Queue::fill, checked the same way for every backend: 1, 2, 4 or 8 bytes, and
// a region that is a whole number of patterns at an offset that is a multiple of its size.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace strata::device::detail {

struct FillPattern {
  std::array<std::byte, 8> bytes{};
  std::uint32_t size = 0;
  // Whether every byte is the same: a byte-wise memset fills it.
  bool uniform() const;
  // Writes `length` bytes of copies of the pattern at `target` (the region starts with a whole
  // pattern): the pattern once, then doubling copies.
  void write(std::byte* target, std::uint64_t length) const;
};

// The checked pattern of a fill of `bytes` at `offset` on device `device_id`; DeviceError naming
// the device and what is wrong otherwise.
FillPattern fill_pattern(const std::string& device_id, std::span<const std::byte> pattern,
                         std::uint64_t offset, std::uint64_t bytes);

}  // namespace strata::device::detail
