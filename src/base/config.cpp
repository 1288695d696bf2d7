#include "strata/base/config.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>

#include "strata/base/error.hpp"
#include "strata/base/log.hpp"
#include "strata/base/setting_table.hpp"
#include "strata/base/settings.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX provides no header

namespace strata {
namespace {

std::string known_settings() {
  std::string known;
  for (const auto& info : settings())
    known += fmt::format("{}{}", known.empty() ? "" : ", ", info.name);
  return known;
}

const SettingInfo& setting_named(std::string_view name, std::string_view source) {
  const SettingInfo* info = find_setting(name);
  if (info == nullptr) {
    throw ConfigError(std::string(name), fmt::format("unknown setting '{}' from {} (known: {})",
                                                     name, source, known_settings()));
  }
  return *info;
}

}  // namespace

Config::Config(const Config& other) {
  for (const auto& [type, stored] : other.sections_)
    sections_.emplace(type, stored->clone());
}

Config& Config::operator=(const Config& other) {
  if (this != &other) {
    Config copy(other);
    *this = std::move(copy);
  }
  return *this;
}

void Config::set(std::string_view name, std::string_view value, std::string_view source) {
  setting_named(name, source).assign(*this, value, source);
}

std::string Config::get(std::string_view name) const {
  return setting_named(name, "get").read(*this);
}

std::vector<std::string> Config::apply_environment(UnknownSettings unknown) {
  constexpr std::string_view prefix = "STRATA_";
  std::vector<std::string> ignored;
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
    if (unknown == UnknownSettings::warn && find_setting(name) == nullptr) {
      ignored.emplace_back(key);
      continue;
    }
    set(name, value, key);
  }
  // Shown at the level this configuration asks for, which the runtime applies later.
  const std::string& level = section<BaseSettings>().log_level;
  if (!ignored.empty() && level != "error" && level != "off") {
    for (const std::string& key : ignored) {
      log().warn(
          "{} is ignored: it names no setting of this program (a misspelling, or a setting of "
          "a layer the program does not link; known: {})",
          key, known_settings());
    }
  }
  return ignored;
}

Config Config::from_environment(UnknownSettings unknown) {
  Config config;
  config.apply_environment(unknown);
  return config;
}

}  // namespace strata
