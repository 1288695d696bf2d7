#pragma once
// `strata arrays info FILE.h5`: the datasets of an HDF5 file — path, element type, shape, size —
// and for each one a distribution proposed for this machine's devices (chunks of about half a
// gigabyte or less, the lightning paper's advice, at least one per device).

#include <CLI/CLI.hpp>
#include <string>

#include "setting_flags.hpp"

namespace strata::cli {

struct ArraysOptions {
  std::string file;
};

// Adds `arrays` and its `info` subcommand to `app`; returns `arrays`.
CLI::App& add_arrays_command(CLI::App& app, ArraysOptions& options);

// Prints the report; returns the process exit status.
int run_arrays_command(const EffectiveConfig& effective, const ArraysOptions& options);

}  // namespace strata::cli
