// OpenCL device discovery through the ICD loader, filtered by the opencl_platform,
// opencl_device_type and opencl_device settings.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "cl_error.hpp"
#include "opencl_device.hpp"
#include "strata/device/backends.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

std::string platform_name(cl_platform_id platform) {
  std::size_t size = 0;
  if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string name(size, '\0');
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, size, name.data(), nullptr);
  while (!name.empty() && name.back() == '\0')
    name.pop_back();
  return name;
}

std::string device_name(cl_device_id device) {
  std::size_t size = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_NAME, 0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string name(size, '\0');
  clGetDeviceInfo(device, CL_DEVICE_NAME, size, name.data(), nullptr);
  while (!name.empty() && name.back() == '\0')
    name.pop_back();
  return name;
}

cl_device_type type_of(const std::string& setting) {
  if (setting == "cpu") return CL_DEVICE_TYPE_CPU;
  if (setting == "gpu") return CL_DEVICE_TYPE_GPU;
  if (setting == "accelerator") return CL_DEVICE_TYPE_ACCELERATOR;
  if (setting == "all" || setting.empty()) return CL_DEVICE_TYPE_ALL;
  throw ConfigError(
      "opencl_device_type",
      fmt::format("opencl_device_type '{}': expected all, cpu, gpu or accelerator", setting));
}

bool is_index(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items)
    text += fmt::format("{}\"{}\"", text.empty() ? "" : ", ", item);
  return text.empty() ? "none" : text;
}

}  // namespace

bool opencl_built() {
  return true;
}

std::vector<std::unique_ptr<Device>> discover_opencl_devices(const Config& config,
                                                             std::shared_ptr<ProgramCache> cache,
                                                             std::string& status) {
  const DeviceSettings& settings = config.section<DeviceSettings>();
  const cl_device_type wanted_type = type_of(settings.opencl_device_type);
  std::vector<std::unique_ptr<Device>> devices;
  cl_uint count = 0;
  const cl_int found = clGetPlatformIDs(0, nullptr, &count);
  if (found != CL_SUCCESS || count == 0) {
    status = fmt::format(
        "no OpenCL platform: the ICD loader found no installable client driver ({}); install one "
        "(e.g. pocl-opencl-icd) or check /etc/OpenCL/vendors",
        found == CL_SUCCESS ? "0 platforms" : detail::cl_error_name(found));
    return devices;
  }
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);

  std::vector<std::string> available;
  std::vector<std::string> chosen;
  std::vector<std::string> found_names;
  std::vector<std::string> problems;
  for (cl_uint p = 0; p < count; ++p) {
    const std::string name = platform_name(platforms[p]);
    available.push_back(name);
    if (name.find(settings.opencl_platform) == std::string::npos) continue;
    chosen.push_back(name);
    cl_uint device_count = 0;
    if (clGetDeviceIDs(platforms[p], wanted_type, 0, nullptr, &device_count) != CL_SUCCESS ||
        device_count == 0) {
      continue;
    }
    std::vector<cl_device_id> ids(device_count);
    clGetDeviceIDs(platforms[p], wanted_type, device_count, ids.data(), nullptr);
    for (cl_uint d = 0; d < device_count; ++d) {
      const std::string dev = device_name(ids[d]);
      if (is_index(settings.opencl_device)) {
        if (std::strtoull(settings.opencl_device.c_str(), nullptr, 10) != d) continue;
      } else if (dev.find(settings.opencl_device) == std::string::npos) {
        continue;
      }
      try {
        devices.push_back(std::make_unique<detail::OpenClDevice>(
            platforms[p], ids[d], fmt::format("opencl:{}:{}", p, d), cache));
        found_names.push_back(fmt::format("{} / {}", name, dev));
      } catch (const DeviceError& error) {
        problems.push_back(error.what());
      }
    }
  }

  if (chosen.empty()) {
    status = fmt::format("no platform matched \"{}\" (available: {})", settings.opencl_platform,
                         join(available));
  } else if (devices.empty()) {
    status = fmt::format(
        "no {}device{} on platform(s) {}",
        settings.opencl_device_type == "all" ? "" : settings.opencl_device_type + " ",
        settings.opencl_device.empty() ? std::string()
                                       : fmt::format(" matching \"{}\"", settings.opencl_device),
        join(chosen));
    for (const auto& problem : problems)
      status += "; " + problem;
  } else {
    status = fmt::format("{} device{}: ", devices.size(), devices.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < found_names.size(); ++i)
      status += (i == 0 ? "" : ", ") + found_names[i];
  }
  return devices;
}

}  // namespace strata::device
