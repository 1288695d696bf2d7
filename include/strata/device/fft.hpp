#pragma once
// Batched 1-D and 2-D single-precision real<->complex FFTs that run in order on a device queue,
// through each backend's FFT library: FFTW3 (CPU), clFFT (OpenCL), cuFFT (CUDA).

#include <cstdint>
#include <span>
#include <string>

#include "strata/device/event.hpp"

namespace strata::device {

class Device;
class DeviceBuffer;
class Queue;

// What one plan transforms: `batch` real arrays of rows x columns floats each (row-major,
// columns fastest; rows = 1 for 1-D), each with a half spectrum of rows x (columns / 2 + 1)
// complex values stored as interleaved (re, im) floats, the layout FFTW, cuFFT and clFFT share.
struct FftShape {
  std::uint64_t rows = 1;
  std::uint64_t columns = 0;
  std::uint64_t batch = 1;

  std::uint64_t spectrum_columns() const { return columns / 2 + 1; }
  std::uint64_t real_bytes() const { return batch * rows * columns * sizeof(float); }
  std::uint64_t spectrum_bytes() const {
    return batch * rows * spectrum_columns() * 2 * sizeof(float);
  }
  // "3 x 480x640", for messages.
  std::string describe() const;
};

// Where a transform's array lies: a device buffer and a byte offset into it (a multiple of 4 for
// real arrays, of 8 for spectra). Converts from a buffer: offset 0.
struct FftArray {
  FftArray(const DeviceBuffer& array, std::uint64_t byte_offset = 0)  // NOLINT: implicit on purpose
      : buffer(&array), offset(byte_offset) {}
  const DeviceBuffer* buffer;
  std::uint64_t offset;
};

// An FFT planned for one device and shape, run on any queue of that device in order with the
// queue's other operations. Both directions are unnormalised (inverse(forward(x)) is
// rows * columns * x); the inverse may overwrite the
// spectrum (FFTW's and cuFFT's multi-dimensional inverses do). Plans may be used from several
// threads at once.
class FftPlan {
 public:
  explicit FftPlan(const FftShape& shape) : shape_(shape) {}
  virtual ~FftPlan() = default;
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  const FftShape& shape() const { return shape_; }
  // real (shape().real_bytes()) -> spectrum (shape().spectrum_bytes()).
  virtual Event forward(Queue& queue, FftArray real, FftArray spectrum,
                        std::span<const Event> after = {}) = 0;
  // spectrum -> real.
  virtual Event inverse(Queue& queue, FftArray spectrum, FftArray real,
                        std::span<const Event> after = {}) = 0;

 protected:
  // Throws DeviceError, naming `device` and the direction, unless both arrays lie in buffers of
  // `device`, are aligned, do not overlap and hold the shape's arrays.
  void check_buffers(const Device& device, FftArray real, FftArray spectrum,
                     const char* direction) const;

 private:
  FftShape shape_;
};

// Throws DeviceError naming `device` unless every extent of `shape` is at least 1 and its
// arrays fit in 32-bit element counts (what the libraries index with).
void validate_fft_shape(const FftShape& shape, const std::string& device);

}  // namespace strata::device
