#include "strata/device/backends.hpp"

#include <fmt/format.h>

#include <sstream>

namespace strata::device {
namespace {

bool listed(const std::string& backends, std::string_view name) {
  std::stringstream list(backends);
  for (std::string item; std::getline(list, item, ',');) {
    if (item == name) return true;
  }
  return false;
}

}  // namespace

DeviceSet discover_devices(const Config& config, std::shared_ptr<BlockRunner> cpu_runner) {
  const DeviceSettings& settings = config.section<DeviceSettings>();
  DeviceSet set;
  set.cache = std::make_shared<ProgramCache>(
      ProgramCache::directory_for_setting(settings.kernel_cache_dir));

  BackendReport cpu{BackendKind::cpu, true, listed(settings.backends, "cpu"), ""};
  if (cpu.enabled) {
    set.devices.push_back(make_cpu_device(std::move(cpu_runner)));
    cpu.status = "1 device (kernels run on the CPU pool)";
    cpu.devices = 1;
  } else {
    cpu.status = "not listed in the 'backends' setting";
  }
  set.reports.push_back(cpu);

  const auto discover = [&](BackendKind kind, bool built, auto&& find) {
    BackendReport report{kind, built, listed(settings.backends, to_string(kind)), ""};
    if (!report.enabled) {
      report.status = "not listed in the 'backends' setting";
    } else {
      auto found = find(config, set.cache, report.status);
      report.devices = found.size();
      for (auto& device : found)
        set.devices.push_back(std::move(device));
    }
    set.reports.push_back(report);
  };
  discover(BackendKind::opencl, opencl_built(), discover_opencl_devices);
  discover(BackendKind::cuda, cuda_built(), discover_cuda_devices);
  return set;
}

}  // namespace strata::device
