#include "strata/base/setting_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <tuple>

#include "strata/base/settings.hpp"

namespace strata {
namespace {

// The sections, ordered by layer (then name: front ends are declared in no fixed order), and their
// settings flattened in the same order. Filled while the program starts (the layers' inline
// variables), read afterwards.
struct Table {
  std::vector<SettingsSection> sections;
  std::vector<SettingInfo> flat;

  Table() { add(base_settings_section()); }

  void add(SettingsSection section) {
    for (const auto& existing : sections) {
      if (existing.name == section.name) return;
    }
    for (SettingInfo& info : section.settings) {
      info.section = section.name;
      if (std::any_of(flat.begin(), flat.end(),
                      [&](const SettingInfo& other) { return other.name == info.name; })) {
        throw std::logic_error(
            fmt::format("setting '{}' of section '{}' is declared twice", info.name, section.name));
      }
    }
    const auto place = std::upper_bound(
        sections.begin(), sections.end(), section,
        [](const SettingsSection& added, const SettingsSection& other) {
          return std::tie(added.layer, added.name) < std::tie(other.layer, other.name);
        });
    sections.insert(place, std::move(section));
    flat.clear();
    for (const auto& each : sections)
      flat.insert(flat.end(), each.settings.begin(), each.settings.end());
  }
};

Table& table() {
  static Table instance;
  return instance;
}

}  // namespace

bool declare_settings(SettingsSection section) {
  table().add(std::move(section));
  return true;
}

std::span<const SettingInfo> settings() {
  return table().flat;
}

std::span<const SettingsSection> setting_sections() {
  return table().sections;
}

const SettingInfo* find_setting(std::string_view name) {
  for (const SettingInfo& info : table().flat) {
    if (info.name == name) return &info;
  }
  return nullptr;
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

}  // namespace strata
