// CUDA discovery: every GPU the CUDA runtime sees, or why there is none (no driver, no device).
// The runtime is linked statically and loads the driver (libcuda.so.1) itself, so binaries
// start and report the reason on machines without one.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "cuda_device.hpp"
#include "cuda_error.hpp"
#include "strata/device/backends.hpp"

namespace strata::device {

bool cuda_built() {
  return true;
}

std::vector<std::unique_ptr<Device>> discover_cuda_devices(const Config&,
                                                           std::shared_ptr<ProgramCache> cache,
                                                           std::string& status) {
  std::vector<std::unique_ptr<Device>> devices;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error == cudaErrorInsufficientDriver) {
    status = "no NVIDIA driver: " + cuda::error_text(error);
    return devices;
  }
  if (error == cudaErrorNoDevice || (error == cudaSuccess && count <= 0)) {
    status = "no CUDA device";
    return devices;
  }
  if (error != cudaSuccess) {
    status = "CUDA unavailable: " + cuda::error_text(error);
    return devices;
  }
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::string skipped;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp properties{};
    const cudaError_t found = cudaGetDeviceProperties(&properties, ordinal);
    if (found != cudaSuccess) {
      skipped += fmt::format("; cuda:{} skipped: {}", ordinal, cuda::error_text(found));
      continue;
    }
    try {
      devices.push_back(std::make_unique<cuda::CudaDevice>(ordinal, properties, driver, cache));
    } catch (const std::exception& e) {
      skipped += fmt::format("; cuda:{} skipped: {}", ordinal, e.what());
    }
  }
  status =
      devices.empty() && skipped.empty()
          ? "no CUDA device"
          : fmt::format("{} device{}{}", devices.size(), devices.size() == 1 ? "" : "s", skipped);
  return devices;
}

}  // namespace strata::device
