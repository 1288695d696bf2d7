#pragma once
// The configuration as the CLI sees it: one --flag per entry of strata::settings(), resolved into
// the effective configuration (defaults < STRATA_* environment < flags) with each value's source.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "strata/base/config.hpp"
#include "strata/base/setting_table.hpp"

namespace strata::cli {

// A configuration and, per entry of strata::settings(), where its value came from:
// "default", the environment variable ("STRATA_CPU_THREADS") or the flag ("--cpu-threads").
struct EffectiveConfig {
  Config config;
  std::vector<std::string> sources;
  // Where the setting `name` came from; std::logic_error when there is no such setting.
  const std::string& source_of(std::string_view name) const;
};

// Collects the setting flags given on the command line.
class SettingFlags {
 public:
  // Adds one option per setting to `app`, in the "Settings" group of its help. Call it for the
  // main app and for every subcommand, so the flags work before and after the subcommand.
  void add_to(CLI::App& app);

  // Adds `flag` to `app` as another name of the setting `setting` (`--jobs` on `allpairs run`
  // for allpairs_jobs_per_device): given, it sets that setting, like the setting's own flag,
  // with `flag` named as the value's source. Throws std::logic_error for an unknown setting.
  void add_alias(CLI::App& app, std::string_view setting, const std::string& flag,
                 std::string_view help);
  // The same for a flag without a value that sets `setting` to `value` (`--no-distributed`:
  // allpairs_distributed_cache off).
  void add_switch_alias(CLI::App& app, std::string_view setting, const std::string& flag,
                        std::string value, std::string_view help);

  // Defaults, overridden by the environment, overridden by the flags in the order they were
  // parsed. Throws ConfigError naming the setting and its source when a value is malformed.
  EffectiveConfig resolve() const;

 private:
  struct GivenFlag {
    std::size_t setting;  // index into strata::settings()
    std::string value;
    std::string flag;  // as given: the setting's flag or an alias
  };
  std::vector<GivenFlag> given_;
};

}  // namespace strata::cli
