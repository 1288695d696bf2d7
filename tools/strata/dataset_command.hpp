#pragma once
// `strata dataset`: the data-set front end's workloads from the command line (docs/datasets.md)
// — k-means over the rows of an IDX (MNIST, Fashion-MNIST) or .npy file, on any number of
// processes under `strata launch`, with a progress line, the report of stage times and the
// answer as CSV files.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "setting_flags.hpp"

namespace strata::cli {

struct DatasetOptions {
  std::string input;
  std::string labels;  // kmeans: an IDX file of one label per point, written beside them
  std::uint32_t k = 10;
  std::uint32_t iterations = 100;
  std::uint64_t points = 0;  // 0: every point of the file
  std::string output = ".";
  std::string checkpoint;
  bool resume = false;
  bool quiet = false;
};

CLI::App& add_dataset_command(CLI::App& app, DatasetOptions& options);
int run_dataset_command(const CLI::App& command, const EffectiveConfig& effective,
                        const DatasetOptions& options);

}  // namespace strata::cli
