#pragma once
// The one table of settings. base holds it; each layer declares its own section into it when the
// program starts (see the layer's settings.hpp), so base names no option of the layers above.

#include <span>
#include <string_view>
#include <vector>

#include "strata/base/setting.hpp"

namespace strata {

// Positions of the layers, bottom up: the table lists sections in this order.
enum class Layer : int { base, device, memory, runtime, cluster, node, front_end };

// The settings one layer (or front end) declares.
struct SettingsSection {
  std::string_view name;     // "runtime", "memory", ...
  Layer layer;               // where the section is listed
  std::string_view summary;  // one line on what the settings are about
  std::vector<SettingInfo> settings;
};

// Adds a section to the table, once per name (a second declaration of the same name is ignored);
// throws std::logic_error when one of its settings' names is already taken. Returns true, so a
// layer's header can declare its section by initializing an inline variable.
bool declare_settings(SettingsSection section);

// Every declared setting, by layer, then in declaration order.
std::span<const SettingInfo> settings();

// The declared sections, in the order of settings().
std::span<const SettingsSection> setting_sections();

// The declared setting of that name, or nullptr.
const SettingInfo* find_setting(std::string_view name);

}  // namespace strata
