#include "strata/base/config.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <thread>
#include <type_traits>
#include <utility>

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

// The error for a well-formed number outside the setting's range: names the range, so a value
// that would wrap around when narrowed to the field's type is refused, never stored.
[[noreturn]] void out_of_range(std::string_view name, std::string_view value,
                               std::string_view source, std::string_view expected) {
  throw ConfigError(std::string(name),
                    fmt::format("setting '{}' from {}: '{}' is out of range: expected {}", name,
                                source, value, expected));
}

// The largest value a numeric field can hold; settings are unsigned, 64 bits at most.
template <auto Member>
constexpr std::uint64_t field_max() {
  using Field = std::remove_cvref_t<decltype(std::declval<Config&>().*Member)>;
  static_assert(std::is_unsigned_v<Field> && sizeof(Field) <= sizeof(std::uint64_t));
  return std::numeric_limits<Field>::max();
}

// Stores `parsed` into the field after checking, in 64 bits, that it lies in [min, field max]:
// the check comes before the narrowing, so nothing wraps.
template <auto Member>
void store_in_range(Config& config, std::string_view name, std::string_view value,
                    std::string_view source, const ParsedNumber& parsed, std::uint64_t min,
                    std::string_view kind) {
  constexpr std::uint64_t max = field_max<Member>();
  if (parsed.status != ParseStatus::ok || parsed.value < min || parsed.value > max) {
    out_of_range(name, value, source, fmt::format("{} from {} to {}", kind, min, max));
  }
  using Field = std::remove_reference_t<decltype(config.*Member)>;
  config.*Member = static_cast<Field>(parsed.value);
}

// A count setting: a decimal integer from `min` to the largest value of the field's type.
template <auto Member>
void assign_count(Config& config, std::string_view name, std::string_view value,
                  std::string_view source, std::uint64_t min) {
  const ParsedNumber parsed = parse_count_checked(value);
  if (parsed.status == ParseStatus::malformed) {
    malformed(name, value, source,
              min == 0 ? "a non-negative integer" : fmt::format("an integer >= {}", min));
  }
  store_in_range<Member>(config, name, value, source, parsed, min, "an integer");
}

// A byte-size setting: "4096", "64KiB", "1.5GiB"... from `min` bytes to the field's largest value.
template <auto Member>
void assign_bytes(Config& config, std::string_view name, std::string_view value,
                  std::string_view source, std::uint64_t min) {
  const ParsedNumber parsed = parse_bytes_checked(value);
  if (parsed.status == ParseStatus::malformed) {
    malformed(name, value, source, "a byte size like 1GiB");
  }
  store_in_range<Member>(config, name, value, source, parsed, min, "a number of bytes");
}

// A byte size as text that reads back to exactly the same value: "1.00 GiB" when that is exact,
// otherwise the plain number of bytes, e.g. "1000000007 B".
std::string exact_bytes_text(std::uint64_t bytes) {
  std::string text = format_bytes(bytes);
  if (parse_bytes(text) != bytes) text = fmt::format("{} B", bytes);
  return text;
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

const std::array<SettingInfo, 17> table{{
    {"cpu_threads", "count",
     "Worker threads of the CPU compute pool, 0 to 4294967295; 0 means one per core.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_count<&Config::cpu_threads>(c, "cpu_threads", v, s, 0);
     },
     [](const Config& c) { return std::to_string(c.cpu_threads); }},
    {"io_threads", "count",
     "Worker threads of the I/O pool, 1 to 4294967295; slow I/O never occupies compute "
     "threads.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_count<&Config::io_threads>(c, "io_threads", v, s, 1);
     },
     [](const Config& c) { return std::to_string(c.io_threads); }},
    {"max_tasks_in_flight", "count",
     "Submitted but unfinished tasks before submit() waits (back-pressure on submitters), 1 to "
     "18446744073709551615.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_count<&Config::max_tasks_in_flight>(c, "max_tasks_in_flight", v, s, 1);
     },
     [](const Config& c) { return std::to_string(c.max_tasks_in_flight); }},
    {"staging_max_bytes", "bytes",
     "Bytes of task data staged ahead per executor (look-ahead budget), 1 B to "
     "18446744073709551615 B (16 EiB - 1 B); a larger single task is still admitted alone.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_bytes<&Config::staging_max_bytes>(c, "staging_max_bytes", v, s, 1);
     },
     [](const Config& c) { return exact_bytes_text(c.staging_max_bytes); }},
    {"staging_max_tasks", "count",
     "Tasks with data staged ahead per executor (look-ahead depth), 1 to "
     "18446744073709551615.",
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
    {"host_capacity", "bytes",
     "Host memory for chunks in each process, 1 B to 18446744073709551615 B (16 EiB - 1 B); "
     "beyond it the least recently used chunks spill to disk.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_bytes<&Config::host_capacity>(c, "host_capacity", v, s, 1);
     },
     [](const Config& c) { return exact_bytes_text(c.host_capacity); }},
    {"device_capacity", "bytes",
     "Memory for chunks on each device, 0 B to 18446744073709551615 B (16 EiB - 1 B); 0 means "
     "90% of the device's memory; beyond it chunks move to the host.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_bytes<&Config::device_capacity>(c, "device_capacity", v, s, 0);
     },
     [](const Config& c) { return exact_bytes_text(c.device_capacity); }},
    {"spill_dir", "path",
     "Directory under which each process makes its spill directory; empty: $TMPDIR, else /tmp.",
     [](Config& c, std::string_view v, std::string_view) { c.spill_dir = std::string(v); },
     [](const Config& c) { return c.spill_dir; }},
    {"spill_capacity", "bytes",
     "Bytes of spill files per process, 0 B to 18446744073709551615 B (16 EiB - 1 B); 0 means "
     "as much as the file system holds.",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_bytes<&Config::spill_capacity>(c, "spill_capacity", v, s, 0);
     },
     [](const Config& c) { return exact_bytes_text(c.spill_capacity); }},
    {"network_piece_bytes", "bytes",
     "Largest piece a bulk transfer between processes moves at once, 1 B to "
     "18446744073709551615 B (16 EiB - 1 B).",
     [](Config& c, std::string_view v, std::string_view s) {
       assign_bytes<&Config::network_piece_bytes>(c, "network_piece_bytes", v, s, 1);
     },
     [](const Config& c) { return exact_bytes_text(c.network_piece_bytes); }},
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
