#include "cuda_error.hpp"

#include <fmt/format.h>

#include "strata/device/errors.hpp"

namespace strata::device::cuda {

std::string error_text(cudaError_t error) {
  return fmt::format("{} ({})", cudaGetErrorName(error), cudaGetErrorString(error));
}

std::exception_ptr error_for(cudaError_t error, const std::string& device_id, const char* what) {
  return std::make_exception_ptr(
      DeviceError(fmt::format("{} {}: {}", device_id, what, error_text(error))));
}

void check(cudaError_t error, const std::string& device_id, const char* what) {
  if (error != cudaSuccess) std::rethrow_exception(error_for(error, device_id, what));
}

}  // namespace strata::device::cuda
