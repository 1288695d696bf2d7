#pragma once
// `strata config`: every setting with its type, environment variable, flag, current value and
// meaning; `--markdown` prints docs/configuration.md.

#include <CLI/CLI.hpp>

#include "setting_flags.hpp"

namespace strata::cli {

// The options of `strata config`.
struct ConfigOptions {
  bool markdown = false;
};

// Adds the `config` subcommand and its options to `app`.
CLI::App& add_config_command(CLI::App& app, ConfigOptions& options);

// Prints the settings; returns the process exit status.
int run_config_command(const EffectiveConfig& effective, const ConfigOptions& options);

}  // namespace strata::cli
