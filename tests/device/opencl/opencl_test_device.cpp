#include "opencl_test_device.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>

namespace strata::device::testing {

std::vector<std::unique_ptr<Device>> discover(const Config& config, std::string& status,
                                              std::shared_ptr<ProgramCache> cache) {
  if (!cache) cache = std::make_shared<ProgramCache>();
  return discover_opencl_devices(config, std::move(cache), status);
}

Device* opencl_device(std::string* why) {
  static std::string status;
  static std::vector<std::unique_ptr<Device>> devices = discover(Config{}, status);
  if (why != nullptr) *why = "no OpenCL device: " + status;
  return devices.empty() ? nullptr : devices.front().get();
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          fmt::format("strata-opencl-test-{}-{}", ::getpid(), counter++);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code error;
  std::filesystem::remove_all(path_, error);
}

}  // namespace strata::device::testing
