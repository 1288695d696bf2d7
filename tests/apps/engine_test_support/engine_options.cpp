#include "engine_test_support.hpp"

namespace strata::apps::engine_testing {

allpairs::EngineOptions engine_options(const std::filesystem::path& output,
                                       const std::string& devices, std::uint64_t device_slots) {
  allpairs::EngineOptions options;
  options.output = output;
  options.devices = devices;
  options.config.section<runtime::RuntimeSettings>().cpu_threads = 2;
  options.config.section<device::DeviceSettings>().kernel_cache_dir = "off";
  options.jobs_per_device = 8;
  options.cache.device_slots = device_slots;
  return options;
}

}  // namespace strata::apps::engine_testing
