#pragma once
// `strata allpairs`: the all-pairs applications of the rocket paper — list them, generate a data
// set with known truth, run one over a data set (any number of processes, under `strata launch`)
// with a progress bar and the paper's report, and check the results against the truth.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "setting_flags.hpp"

namespace strata::cli {

// The options of `strata allpairs ...` besides the settings of the "allpairs" section (cache
// sizes, hops, jobs, leaf), which `run` takes as flags and reads from the effective config.
struct AllPairsOptions {
  std::string application;
  std::string directory;
  std::size_t items = 0;  // generate: 0 for the application's default
  std::uint64_t seed = 1;
  std::string output;  // run: default <directory>/results.bin
  bool resume = false;
  std::string devices;  // run: empty for the backends setting where the user set it, else cpu
  bool skip_bad_input = false;
  bool quiet = false;
  std::string report_json;  // run: also write the report as JSON here
  std::string crop;         // run, evaluate: camera photos' centre crop, WxH
};

// Adds `allpairs` with its subcommands `list`, `generate`, `run`, `evaluate`; `run`'s
// --device-cache, --host-cache, --no-distributed, --hops, --jobs and --leaf are aliases of the
// allpairs_* setting flags in `setting_flags`.
CLI::App& add_allpairs_command(CLI::App& app, AllPairsOptions& options,
                               SettingFlags& setting_flags);

// Runs whichever subcommand was given; returns the exit status.
int run_allpairs_command(const CLI::App& command, const EffectiveConfig& effective,
                         const AllPairsOptions& options);

}  // namespace strata::cli
