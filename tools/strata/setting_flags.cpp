#include "setting_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

// Every layer's settings: the CLI links them all and offers each as a flag.
#include "strata/allpairs/settings.hpp"
#include "strata/array/settings.hpp"
#include "strata/base/setting_table.hpp"
#include "strata/cluster/settings.hpp"
#include "strata/device/settings.hpp"
#include "strata/memory/settings.hpp"
#include "strata/runtime/settings.hpp"

namespace strata::cli {
namespace {

// The placeholder shown in --help for a setting's value, e.g. "BYTES" for type "bytes".
std::string value_placeholder(std::string_view type) {
  if (type == "count") return "N";
  if (type == "path") return "FILE";
  std::string upper(type);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return upper;
}

// The index of the setting `name` in strata::settings(); std::logic_error when there is none.
std::size_t index_of(std::string_view name) {
  const auto table = settings();
  for (std::size_t index = 0; index < table.size(); ++index) {
    if (table[index].name == name) return index;
  }
  throw std::logic_error(fmt::format("no setting '{}'", name));
}

// An alias's help: its own, then the setting it sets, its default and its variable.
std::string alias_help(const SettingInfo& info, std::string_view help) {
  const std::string value = info.read(Config{});
  return fmt::format("{} (sets {}; default: {}; env: {})", help, info.name,
                     value.empty() ? "none" : value, info.environment_variable());
}

}  // namespace

void SettingFlags::add_alias(CLI::App& app, std::string_view setting, const std::string& flag,
                             std::string_view help) {
  const std::size_t index = index_of(setting);
  const SettingInfo& info = settings()[index];
  app.add_option_function<std::string>(
         flag,
         [this, index, flag](const std::string& value) {
           given_.push_back({index, value, flag});
         },
         alias_help(info, help))
      ->type_name(value_placeholder(info.type));
}

void SettingFlags::add_switch_alias(CLI::App& app, std::string_view setting,
                                    const std::string& flag, std::string value,
                                    std::string_view help) {
  const std::size_t index = index_of(setting);
  app.add_flag_callback(
      flag,
      [this, index, flag, value] {
        given_.push_back({index, value, flag});
      },
      alias_help(settings()[index], help));
}

void SettingFlags::add_to(CLI::App& app) {
  const auto table = settings();
  for (std::size_t index = 0; index < table.size(); ++index) {
    const SettingInfo& info = table[index];
    const std::string help = fmt::format("{} (default: {}; env: {})", info.help,
                                         info.read(Config{}).empty() ? "none" : info.read(Config{}),
                                         info.environment_variable());
    app.add_option_function<std::string>(
           info.flag(),
           [this, index, flag = info.flag()](const std::string& value) {
             given_.push_back({index, value, flag});
           },
           help)
        ->type_name(value_placeholder(info.type))
        ->group("Settings");
  }
}

EffectiveConfig SettingFlags::resolve() const {
  const auto table = settings();
  // The tool has every layer, so a STRATA_* variable that names no setting is misspelt: an error.
  EffectiveConfig effective{Config::from_environment(UnknownSettings::error), {}};
  for (const SettingInfo& info : table) {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): read before any thread starts
    const bool from_environment = std::getenv(info.environment_variable().c_str()) != nullptr;
    effective.sources.push_back(from_environment ? info.environment_variable() : "default");
  }
  for (const GivenFlag& flag : given_) {
    const SettingInfo& info = table[flag.setting];
    effective.config.set(info.name, flag.value, flag.flag);
    effective.sources[flag.setting] = flag.flag;
  }
  return effective;
}

const std::string& EffectiveConfig::source_of(std::string_view name) const {
  return sources.at(index_of(name));
}

}  // namespace strata::cli
