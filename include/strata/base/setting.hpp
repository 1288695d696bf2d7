#pragma once
// One setting of the configuration table: its name, type, help, and how to set and read it.

#include <functional>
#include <string>
#include <string_view>

namespace strata {

class Config;

// A setting as a layer declares it. Its default is what read() gives on a fresh Config.
struct SettingInfo {
  std::string_view section;  // the layer that declared it ("runtime", "memory", ...)
  std::string_view name;     // lower_snake_case, unique over every layer
  std::string_view type;     // "count", "bytes", "path", "text", ... (shown in docs and --help)
  std::string_view help;
  // Parses and validates `value`, then stores it; throws ConfigError naming the setting and
  // `source` when it is malformed or out of range, leaving the configuration as it was.
  std::function<void(Config&, std::string_view value, std::string_view source)> assign;
  // The current value as text that assign() reads back to the same value.
  std::function<std::string(const Config&)> read;

  std::string environment_variable() const;  // STRATA_<NAME>
  std::string flag() const;                  // --<name-with-dashes>
};

}  // namespace strata
