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

void FftPlan::check_buffers(const Device& device, const DeviceBuffer& real,
                            const DeviceBuffer& spectrum, const char* direction) const {
  const std::string& id = device.info().id;
  const auto check = [&](const DeviceBuffer& buffer, const char* what, std::uint64_t bytes) {
    if (!buffer) {
      throw DeviceError(fmt::format("{}: {} FFT of {}: the {} buffer is empty", id, direction,
                                    shape_.describe(), what));
    }
    if (buffer.device() != &device) {
      throw DeviceError(fmt::format("{}: {} FFT of {}: the {} buffer belongs to another device", id,
                                    direction, shape_.describe(), what));
    }
    if (buffer.bytes() < bytes) {
      throw DeviceError(fmt::format("{}: {} FFT of {}: the {} buffer has {} B, it needs {} B", id,
                                    direction, shape_.describe(), what, buffer.bytes(), bytes));
    }
  };
  check(real, "real", shape_.real_bytes());
  check(spectrum, "spectrum", shape_.spectrum_bytes());
  if (real.handle() == spectrum.handle()) {
    throw DeviceError(
        fmt::format("{}: {} FFT of {}: the real and spectrum buffers are the same; "
                    "the transforms are out of place",
                    id, direction, shape_.describe()));
  }
}

}  // namespace strata::device
