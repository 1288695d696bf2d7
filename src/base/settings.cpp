#include "strata/base/settings.hpp"

#include "strata/base/setting_kinds.hpp"
#include "strata/base/setting_table.hpp"

namespace strata {

SettingsSection base_settings_section() {
  return {"base",
          Layer::base,
          "logging",
          {
              choice_setting<&BaseSettings::log_level>(
                  "log_level", "level", {"trace", "debug", "info", "warn", "error", "off"},
                  "Least severe log message shown: trace, debug, info, warn, error, off."),
          }};
}

}  // namespace strata
