#pragma once
// `strata store ls DIRECTORY`: what an HDF5 box store holds — per key (name, kind, timestamp,
// version) its element type, number of boxes, the box around them all and their bytes; with
// --boxes every box and its file.

#include <CLI/CLI.hpp>
#include <string>

#include "setting_flags.hpp"

namespace strata::cli {

struct StoreOptions {
  std::string directory;
  bool boxes = false;
};

// Adds `store` and its `ls` subcommand to `app`; returns `store`.
CLI::App& add_store_command(CLI::App& app, StoreOptions& options);

// Prints the listing; returns the process exit status.
int run_store_command(const StoreOptions& options);

}  // namespace strata::cli
