// OpenCL devices of a build without clFFT refuse to plan FFTs, saying what to install.
#include <fmt/format.h>

#include "opencl_device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device::detail {

std::shared_ptr<FftPlan> OpenClDevice::make_fft_plan(const FftShape& shape) {
  throw DeviceError(
      fmt::format("opencl {}: cannot plan an FFT of {}: this build has no clFFT "
                  "(install libclfft-dev and configure again)",
                  *label(), shape.describe()));
}

}  // namespace strata::device::detail
