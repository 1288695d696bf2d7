#pragma once
// Strata's one typed configuration table: every setting, its default, and where it can be set.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace strata {

// All runtime settings. Set fields from code, or by name with set(); apply_environment() reads
// STRATA_* variables and the CLI maps --name flags onto set(). docs/configuration.md lists them.
struct Config {
  unsigned cpu_threads = 0;  // 0: one per core
  unsigned io_threads = 2;   // threads of the I/O pool
  std::uint64_t max_tasks_in_flight = 1u
                                      << 18;  // submitted but unfinished tasks before submit waits
  std::uint64_t staging_max_bytes = 1ull << 30;  // bytes staged ahead per executor
  std::uint64_t staging_max_tasks = 64;          // tasks staged ahead per executor
  std::string trace;                             // Chrome trace-event JSON written at shutdown
  std::string log_level = "warn";                // trace, debug, info, warn, error, off
  std::string backends = "cpu,opencl,cuda";      // device backends to use, in preference order
  std::string opencl_platform;                   // substring of the platform name; empty: any
  std::string opencl_device_type = "all";        // all, cpu, gpu, accelerator
  std::string opencl_device;  // device index or name substring within the platform; empty: all
  std::string kernel_cache_dir = "default";  // compiled kernels on disk; "off": memory only
  std::uint64_t host_capacity = 1ull << 30;  // bytes of host memory for chunks, per process
  std::uint64_t device_capacity = 0;         // per device; 0: 90% of its memory
  std::string spill_dir;                     // where spill files go; empty: $TMPDIR or /tmp
  std::uint64_t spill_capacity = 0;          // bytes of spill files; 0: the file system's room
  std::uint64_t network_piece_bytes = 8ull << 20;  // bulk transfers move in pieces of this

  // Sets a setting from text; throws ConfigError naming the setting when unknown or malformed.
  // `source` says where the value came from ("STRATA_CPU_THREADS", "--cpu-threads", ...).
  void set(std::string_view name, std::string_view value, std::string_view source = "code");
  // The current value of a setting as text; throws ConfigError when unknown.
  std::string get(std::string_view name) const;
  // Applies every STRATA_* environment variable; an unknown one is an error naming it.
  void apply_environment();
  // Defaults overridden by the environment.
  static Config from_environment();
  // The number of CPU worker threads this configuration yields on this machine.
  unsigned effective_cpu_threads() const;
};

// Description of one setting: its name, environment variable, type, default and meaning.
struct SettingInfo {
  std::string_view name;
  std::string_view type;
  std::string_view help;
  void (*assign)(Config&, std::string_view value, std::string_view source);
  std::string (*read)(const Config&);

  std::string environment_variable() const;  // STRATA_<NAME>
  std::string flag() const;                  // --<name-with-dashes>
};

// The table of all settings, in documentation order.
std::span<const SettingInfo> settings();

}  // namespace strata
