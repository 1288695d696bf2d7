#pragma once
// The device layer's settings: which backends and devices discovery uses, and where compiled
// kernels are kept. Declared into the configuration table by every program that includes this.

#include <string>

namespace strata::device {

struct DeviceSettings {
  std::string backends = "cpu,opencl,cuda";  // device backends to use, in preference order
  std::string opencl_platform;               // substring of the platform name; empty: any
  std::string opencl_device_type = "all";    // all, cpu, gpu, accelerator
  std::string opencl_device;  // device index or name substring within the platform; empty: all
  std::string kernel_cache_dir = "default";  // compiled kernels on disk; "off": memory only
};

// Adds the section "device" to the table (once); true.
bool declare_device_settings();
inline const bool device_settings_declared = declare_device_settings();

}  // namespace strata::device
