#pragma once
// The options every lightning program takes besides its problem's (--distribution, --devices,
// --seed, --no-check), and the 1-D distributions of chunks and blocks that --distribution names.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/array/distribution.hpp"
#include "strata/array/work_distribution.hpp"

namespace strata::lightning {

struct RunOptions {
  std::string distribution = "rows";
  std::string devices;  // backends; empty: the configuration's
  std::uint64_t seed = 1;
  bool check = true;

  bool round_robin() const { return distribution == "round-robin"; }
};

// What a program's help says of the options RunOptions holds.
struct RunOptionHelp {
  std::string seed;  // what the seed draws
  std::string distribution = "rows or round-robin";
  std::vector<std::string> distributions = {"rows", "round-robin"};
  std::string no_check = "skip the sequential reference (benchmark runs)";
};

// Adds RunOptions' options to `app`, which then leaves an MPI launcher's arguments alone.
inline void add_run_options(CLI::App& app, RunOptions& options, const RunOptionHelp& help) {
  app.add_option("--distribution", options.distribution, help.distribution)
      ->check(CLI::IsMember(help.distributions));
  app.add_option("--devices", options.devices, "backends to use, e.g. cpu or cpu,opencl");
  app.add_option("--seed", options.seed, help.seed);
  app.add_flag("!--no-check", options.check, help.no_check);
  app.allow_extras();  // an MPI launcher's own arguments
}

// Rows in chunks of `chunk`: row blocks in order, or dealt in turn (round-robin).
inline array::Distribution chunk_distribution(const RunOptions& options, std::uint64_t chunk) {
  return options.round_robin() ? array::Distribution::round_robin({chunk})
                               : array::Distribution::row_blocks(chunk);
}

// The work of blocks of `block` threads in superblocks of one chunk each, placed as
// chunk_distribution places the chunks.
inline array::WorkDistribution chunk_work(const RunOptions& options, std::uint64_t chunk,
                                          std::uint64_t block) {
  const std::uint64_t blocks = std::max<std::uint64_t>(1, chunk / block);
  return options.round_robin() ? array::WorkDistribution::round_robin({blocks})
                               : array::WorkDistribution::tiled({blocks});
}

}  // namespace strata::lightning
