#pragma once
// base's own settings: the log level. base declares them into the table itself.

#include <string>
#include <string_view>

namespace strata {

struct SettingsSection;

struct BaseSettings {
  std::string log_level = "warn";  // trace, debug, info, warn, error, off
};

// base's section of the table; the table holds it from the start.
SettingsSection base_settings_section();

}  // namespace strata
