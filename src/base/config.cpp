#include "strata/base/config.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <thread>

#include "strata/base/error.hpp"
#include "strata/base/units.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX provides no header

namespace strata {
namespace {

[[noreturn]] void malformed(std::string_view name, std::string_view value, std::string_view source,
                            std::string_view expected) {
  throw ConfigError(std::string(name), fmt::format("setting '{}' from {}: '{}' is not {}", name,
                                                   source, value, expected));
}

template <auto Member>
void assign_count(Config& config, std::string_view name, std::string_view value,
                  std::string_view source, std::uint64_t min) {
  auto parsed = parse_count(value);
  if (!parsed || *parsed < min) {
    malformed(name, value, source,
              min == 0 ? "a non-negative integer" : fmt::format("an integer >= {}", min));
  }
  using Field = std::remove_reference_t<decltype(config.*Member)>;
  config.*Member = static_cast<Field>(*parsed);
}

constexpr std::array<std::string_view, 6> log_levels{"trace", "debug", "info",
                                                     "warn",  "error", "off"};

constexpr std::array<std::string_view, 3> backend_names{"cpu", "opencl", "cuda"};
constexpr std::array<std::string_view, 4> opencl_types{"all", "cpu", "gpu", "accelerator"};

void assign_backends(Config& c, std::string_view v, std::string_view s) {
  std::string_view rest = v;
  if (rest.empty()) malformed("backends", v, s, "a comma-separated list of cpu, opencl, cuda");
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    if (std::find(backend_names.begin(), backend_names.end(), name) == backend_names.end()) {
      malformed("backends", v, s, "a comma-separated list of cpu, opencl, cuda");
    }
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  c.backends = std::string(v);
}

const std::array<SettingInfo, 12> table{{
    {"cpu_threads", "count", "Worker threads of the CPU compute pool; 0 means one per core.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_count<&Config::cpu_threads>(c, "cpu_threads", v, s, 0);
     },
     [](const Config& c) { return std::to_string(c.cpu_threads); }},
    {"io_threads", "count",
     "Worker threads of the I/O pool; slow I/O never occupies compute threads.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_count<&Config::io_threads>(c, "io_threads", v, s, 1);
     },
     [](const Config& c) { return std::to_string(c.io_threads); }},
    {"max_tasks_in_flight", "count",
     "Submitted but unfinished tasks before submit() waits (back-pressure on submitters).",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_count<&Config::max_tasks_in_flight>(c, "max_tasks_in_flight", v, s, 1);
     },
     [](const Config& c) { return std::to_string(c.max_tasks_in_flight); }},
    {"staging_max_bytes", "bytes",
     "Bytes of task data staged ahead per executor (look-ahead budget); a larger single task "
     "is still admitted alone.",
     [](Config& c, std::string_view v, std::string_view s) {
       auto parsed = parse_bytes(v);
       if (!parsed || *parsed == 0) malformed("staging_max_bytes", v, s, "a byte size like 1GiB");
       c.staging_max_bytes = *parsed;
     },
     [](const Config& c) { return format_bytes(c.staging_max_bytes); }},
    {"staging_max_tasks", "count", "Tasks with data staged ahead per executor (look-ahead depth).",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_count<&Config::staging_max_tasks>(c, "staging_max_tasks", v, s, 1);
     },
     [](const Config& c) { return std::to_string(c.staging_max_tasks); }},
    {"trace", "path",
     "Write a Chrome trace-event JSON of every task (opens in Perfetto) to this file at "
     "shutdown; empty: no trace.",
     [](Config& c, std::string_view v, std::string_view) { c.trace = std::string(v); },
     [](const Config& c) { return c.trace; }},
    {"log_level", "level", "Least severe log message shown: trace, debug, info, warn, error, off.",
     [](Config& c, std::string_view v, std::string_view s) {
       if (std::find(log_levels.begin(), log_levels.end(), v) == log_levels.end()) {
         malformed("log_level", v, s, "one of trace, debug, info, warn, error, off");
       }
       c.log_level = std::string(v);
     },
     [](const Config& c) { return c.log_level; }},
    {"backends", "list",
     "Device backends to use, in order of preference: a comma-separated list of cpu, opencl, "
     "cuda. A listed backend this build or machine lacks is reported by 'strata info', not an "
     "error.",
     assign_backends, [](const Config& c) { return c.backends; }},
    {"opencl_platform", "text",
     "OpenCL platform to use: a substring of its name (e.g. Portable, NVIDIA); empty: every "
     "platform.",
     [](Config& c, std::string_view v, std::string_view) { c.opencl_platform = std::string(v); },
     [](const Config& c) { return c.opencl_platform; }},
    {"opencl_device_type", "choice", "OpenCL device type to use: all, cpu, gpu, accelerator.",
     [](Config& c, std::string_view v, std::string_view s) {
       if (std::find(opencl_types.begin(), opencl_types.end(), v) == opencl_types.end()) {
         malformed("opencl_device_type", v, s, "one of all, cpu, gpu, accelerator");
       }
       c.opencl_device_type = std::string(v);
     },
     [](const Config& c) { return c.opencl_device_type; }},
    {"opencl_device", "text",
     "OpenCL device to use within the chosen platforms: an index or a substring of its name; "
     "empty: every device.",
     [](Config& c, std::string_view v, std::string_view) { c.opencl_device = std::string(v); },
     [](const Config& c) { return c.opencl_device; }},
    {"kernel_cache_dir", "path",
     "Directory of compiled kernels, so a second run does not recompile: 'default' is "
     "$XDG_CACHE_HOME/strata/kernels (or ~/.cache/strata/kernels), 'off' keeps them in memory "
     "only.",
     [](Config& c, std::string_view v, std::string_view s) {
       if (v.empty()) malformed("kernel_cache_dir", v, s, "a directory, 'default' or 'off'");
       c.kernel_cache_dir = std::string(v);
     },
     [](const Config& c) { return c.kernel_cache_dir; }},
}};

const SettingInfo& find_setting(std::string_view name, std::string_view source) {
  for (const auto& info : table) {
    if (info.name == name) return info;
  }
  std::string known;
  for (const auto& info : table)
    known += fmt::format("{}{}", known.empty() ? "" : ", ", info.name);
  throw ConfigError(std::string(name),
                    fmt::format("unknown setting '{}' from {} (known: {})", name, source, known));
}

}  // namespace

std::span<const SettingInfo> settings() {
  return table;
}

std::string SettingInfo::environment_variable() const {
  std::string env = "STRATA_";
  for (char ch : name)
    env += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return env;
}

std::string SettingInfo::flag() const {
  std::string flag = "--";
  for (char ch : name)
    flag += ch == '_' ? '-' : ch;
  return flag;
}

void Config::set(std::string_view name, std::string_view value, std::string_view source) {
  find_setting(name, source).assign(*this, value, source);
}

std::string Config::get(std::string_view name) const {
  return find_setting(name, "get").read(*this);
}

void Config::apply_environment() {
  constexpr std::string_view prefix = "STRATA_";
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view variable(*entry);
    if (!variable.starts_with(prefix)) continue;
    const auto equals = variable.find('=');
    const std::string_view key = variable.substr(0, equals);
    const std::string_view value =
        equals == std::string_view::npos ? std::string_view() : variable.substr(equals + 1);
    std::string name;
    for (char ch : key.substr(prefix.size())) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    set(name, value, key);
  }
}

Config Config::from_environment() {
  Config config;
  config.apply_environment();
  return config;
}

unsigned Config::effective_cpu_threads() const {
  if (cpu_threads != 0) return cpu_threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace strata
