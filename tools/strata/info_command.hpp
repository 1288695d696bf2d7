#pragma once
// `strata info`: the detected resources, the backends this build has, the cluster size and the
// effective configuration, as text or as JSON.

#include <CLI/CLI.hpp>

#include "setting_flags.hpp"

namespace strata::cli {

// The options of `strata info`.
struct InfoOptions {
  bool json = false;
};

// Adds the `info` subcommand and its options to `app`.
CLI::App& add_info_command(CLI::App& app, InfoOptions& options);

// Prints the report; returns the process exit status.
int run_info_command(const EffectiveConfig& effective, const InfoOptions& options);

}  // namespace strata::cli
