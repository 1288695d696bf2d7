#include "test_devices.hpp"

#include <vector>

#include "strata/base/config.hpp"
#include "strata/device/backends.hpp"

namespace strata::apps::phylogeny::testing {

std::unique_ptr<device::Device> make_cpu_test_device() {
  return device::make_cpu_device(device::default_block_runner());
}

device::Device* opencl_test_device(std::string* why) {
  static std::string status;
  static const std::vector<std::unique_ptr<device::Device>> devices = [] {
    Config config;
    config.section<device::DeviceSettings>().kernel_cache_dir = "off";
    return device::discover_opencl_devices(config, std::make_shared<device::ProgramCache>(),
                                           status);
  }();
  if (why != nullptr) *why = "no OpenCL device: " + status;
  return devices.empty() ? nullptr : devices.front().get();
}

device::Device* cuda_test_device(std::string* why) {
  static std::string status;
  static const std::vector<std::unique_ptr<device::Device>> devices = [] {
    Config config;
    config.section<device::DeviceSettings>().kernel_cache_dir = "off";
    return device::discover_cuda_devices(config, std::make_shared<device::ProgramCache>(), status);
  }();
  if (why != nullptr) *why = "no CUDA device: " + status;
  return devices.empty() ? nullptr : devices.front().get();
}

}  // namespace strata::apps::phylogeny::testing
