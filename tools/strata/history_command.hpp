#pragma once
// `strata history [FILE]`: what a run-time history (the setting runtime.history) has learned —
// per kernel and input-size bucket, the runs and mean time on each kind of executor, and the
// speedup PATS takes from them.

#include <CLI/CLI.hpp>
#include <string>

#include "setting_flags.hpp"

namespace strata::cli {

struct HistoryOptions {
  std::string file;  // empty: the history setting's file
};

// Adds the `history` subcommand to `app`.
CLI::App& add_history_command(CLI::App& app, HistoryOptions& options);

// Prints the history; returns the process exit status.
int run_history_command(const EffectiveConfig& effective, const HistoryOptions& options);

}  // namespace strata::cli
