// CUDA discovery in a build configured without CUDA: reports why there are no devices.
#include "strata/device/backends.hpp"

namespace strata::device {

bool cuda_built() {
  return false;
}

std::vector<std::unique_ptr<Device>> discover_cuda_devices(const Config&,
                                                           std::shared_ptr<ProgramCache>,
                                                           std::string& status) {
  status = "not built (configure did not find CUDA, or STRATA_WITH_CUDA=OFF)";
  return {};
}

}  // namespace strata::device
