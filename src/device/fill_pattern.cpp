#include "fill_pattern.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "strata/device/errors.hpp"

namespace strata::device::detail {

bool FillPattern::uniform() const {
  return std::all_of(bytes.begin(), bytes.begin() + size,
                     [&](std::byte b) { return b == bytes[0]; });
}

void FillPattern::write(std::byte* target, std::uint64_t length) const {
  if (length == 0) return;
  std::memcpy(target, bytes.data(), size);
  std::uint64_t filled = size;
  while (filled < length) {
    const std::uint64_t step = std::min(filled, length - filled);
    std::memcpy(target + filled, target, step);
    filled += step;
  }
}

FillPattern fill_pattern(const std::string& device_id, std::span<const std::byte> pattern,
                         std::uint64_t offset, std::uint64_t bytes) {
  const std::size_t size = pattern.size();
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    throw DeviceError(fmt::format("{} fill: the pattern has {} bytes; it must have 1, 2, 4 or 8",
                                  device_id, size));
  }
  if (offset % size != 0 || bytes % size != 0) {
    throw DeviceError(fmt::format(
        "{} fill: {} B at offset {} are not whole {}-byte patterns at a multiple of {} B",
        device_id, bytes, offset, size, size));
  }
  FillPattern checked;
  checked.size = static_cast<std::uint32_t>(size);
  std::copy(pattern.begin(), pattern.end(), checked.bytes.begin());
  return checked;
}

}  // namespace strata::device::detail
