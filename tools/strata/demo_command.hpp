#pragma once
// `strata demo`: the showcase job — a task graph that generates, reads, transforms, writes and
// verifies real files, with a live progress line and a utilization summary.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "setting_flags.hpp"

namespace strata::cli {

// The options of `strata demo`.
struct DemoOptions {
  std::string directory;  // empty: a fresh directory under the system's temporary directory
  std::uint64_t files = 64;
  std::string size = "4MiB";
  bool keep = false;  // keep the fresh directory
};

// Adds the `demo` subcommand and its options to `app`.
CLI::App& add_demo_command(CLI::App& app, DemoOptions& options);

// Runs the demo; returns the process exit status (0: every output verified).
int run_demo_command(const EffectiveConfig& effective, const DemoOptions& options);

}  // namespace strata::cli
