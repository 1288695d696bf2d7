#include "strata/device/fft.hpp"

#include <fmt/format.h>

#include <limits>

#include "strata/device/device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {

std::string FftShape::describe() const {
  const std::string extent =
      rows == 1 ? fmt::format("{}", columns) : fmt::format("{}x{}", rows, columns);
  return batch == 1 ? extent : fmt::format("{} x {}", batch, extent);
}

void validate_fft_shape(const FftShape& shape, const std::string& device) {
  if (shape.rows == 0 || shape.columns == 0 || shape.batch == 0) {
    throw DeviceError(
        fmt::format("{}: an FFT of {} rows, {} columns and a batch of {}: every "
                    "extent must be at least 1",
                    device, shape.rows, shape.columns, shape.batch));
  }
  constexpr std::uint64_t limit = std::numeric_limits<std::int32_t>::max();
  if (shape.rows > limit || shape.columns > limit || shape.batch > limit ||
      shape.batch * shape.rows * shape.columns > limit) {
    throw DeviceError(fmt::format("{}: an FFT of {}: more than {} elements in all", device,
                                  shape.describe(), limit));
  }
}

void FftPlan::check_buffers(const Device& device, FftArray real, FftArray spectrum,
                            const char* direction) const {
  const std::string& id = device.info().id;
  const auto check = [&](FftArray array, const char* what, std::uint64_t bytes,
                         std::uint64_t alignment) {
    const DeviceBuffer& buffer = *array.buffer;
    const auto fail = [&](const std::string& why) {
      throw DeviceError(fmt::format("{}: {} FFT of {}: the {} array {}", id, direction,
                                    shape_.describe(), what, why));
    };
    if (!buffer) fail("is in an empty buffer");
    if (buffer.device() != &device) fail("is in a buffer of another device");
    if (array.offset % alignment != 0)
      fail(fmt::format("starts at byte {}, not a multiple of {}", array.offset, alignment));
    if (array.offset > buffer.bytes() || buffer.bytes() - array.offset < bytes) {
      fail(fmt::format("needs {} B from byte {}, the buffer has {} B", bytes, array.offset,
                       buffer.bytes()));
    }
  };
  check(real, "real", shape_.real_bytes(), sizeof(float));
  check(spectrum, "spectrum", shape_.spectrum_bytes(), 2 * sizeof(float));
  if (real.buffer->handle() == spectrum.buffer->handle() &&
      real.offset < spectrum.offset + shape_.spectrum_bytes() &&
      spectrum.offset < real.offset + shape_.real_bytes()) {
    throw DeviceError(
        fmt::format("{}: {} FFT of {}: the real and spectrum arrays overlap; the "
                    "transforms are out of place",
                    id, direction, shape_.describe()));
  }
}

}  // namespace strata::device
