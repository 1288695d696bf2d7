#include "strata/device/settings.hpp"

#include <array>
#include <string_view>

#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"

namespace strata::device {
namespace {

void check_backends(std::string_view name, std::string_view value, std::string_view source) {
  constexpr std::array<std::string_view, 3> backends{"cpu", "opencl", "cuda"};
  check_choice_list(name, value, source, backends);
}

void check_cache_dir(std::string_view name, std::string_view value, std::string_view source) {
  if (value.empty()) setting_malformed(name, value, source, "a directory, 'default' or 'off'");
}

}  // namespace

bool declare_device_settings() {
  return declare_settings(
      {"device",
       Layer::device,
       "device backends, OpenCL platform and device choice, the kernel cache",
       {
           text_setting<&DeviceSettings::backends>(
               "backends", "list",
               "Device backends to use, in order of preference: a comma-separated list of cpu, "
               "opencl, cuda. A listed backend this build or machine lacks is reported by "
               "'strata info', not an error.",
               check_backends),
           text_setting<&DeviceSettings::opencl_platform>(
               "opencl_platform", "text",
               "OpenCL platform to use: a substring of its name (e.g. Portable, NVIDIA); empty: "
               "every platform."),
           choice_setting<&DeviceSettings::opencl_device_type>(
               "opencl_device_type", "choice", {"all", "cpu", "gpu", "accelerator"},
               "OpenCL device type to use: all, cpu, gpu, accelerator."),
           text_setting<&DeviceSettings::opencl_device>(
               "opencl_device", "text",
               "OpenCL device to use within the chosen platforms: an index or a substring of its "
               "name; empty: every device."),
           text_setting<&DeviceSettings::kernel_cache_dir>(
               "kernel_cache_dir", "path",
               "Directory of compiled kernels, so a second run does not recompile: 'default' is "
               "$XDG_CACHE_HOME/strata/kernels (or ~/.cache/strata/kernels), 'off' keeps them in "
               "memory only.",
               check_cache_dir),
       }});
}

}  // namespace strata::device
