// OpenCL discovery in a build configured without OpenCL: reports why there are no devices.
#include "strata/device/backends.hpp"

namespace strata::device {

bool opencl_built() {
  return false;
}

std::vector<std::unique_ptr<Device>> discover_opencl_devices(const Config&,
                                                             std::shared_ptr<ProgramCache>,
                                                             std::string& status) {
  status = "not built (configure did not find OpenCL, or STRATA_WITH_OPENCL=OFF)";
  return {};
}

}  // namespace strata::device
