#pragma once
// `strata launch -n N -- PROGRAM ARGS...`: starts PROGRAM as an N-process Strata cluster through
// the MPI launcher this build found (Open MPI's mpiexec), also as root and on fewer cores than N.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace strata::cli {

// The options of `strata launch`.
struct LaunchOptions {
  int processes = 1;
  std::vector<std::string> command;  // the program and its arguments
};

// Adds the `launch` subcommand and its options to `app`.
CLI::App& add_launch_command(CLI::App& app, LaunchOptions& options);

// The launcher's command line for `options` (exposed for tests).
std::vector<std::string> launcher_command(const LaunchOptions& options);

// Replaces this process by the launcher; returns only on failure (the exit status).
int run_launch_command(const LaunchOptions& options);

}  // namespace strata::cli
