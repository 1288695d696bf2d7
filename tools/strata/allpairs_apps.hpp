#pragma once
// The all-pairs applications this build has (apps/), behind one table the `strata allpairs`
// command uses: generate a data set, open it as an application, evaluate a results file.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/allpairs/application.hpp"

namespace strata::cli {

// A file an application wrote for the user after a run, and what it holds.
struct AllPairsOutput {
  std::filesystem::path path;
  std::string what;
};

// Options of one application, given on the command line (others refuse them, naming them).
struct AllPairsAppOptions {
  std::string crop;  // camera: compare centre crops of WxH pixels
};

// One application's entry points.
struct AllPairsApp {
  std::string name;
  std::string description;
  std::function<void(const std::filesystem::path& dir, std::size_t items, std::uint64_t seed)>
      generate;
  std::function<std::unique_ptr<allpairs::ApplicationBase>(const std::filesystem::path& dir,
                                                           const AllPairsAppOptions& options)>
      open;
  // Whether the truth was recovered, and a summary.
  std::function<std::pair<bool, std::string>(const std::filesystem::path& dir,
                                             const std::filesystem::path& results,
                                             const AllPairsAppOptions& options)>
      evaluate;
  // The truth file of a generated data set (in the data directory); a run evaluates its results
  // only where there is one.
  std::string truth_file;
  // Writes the run's answer beside the results file; the files and a summary (truth not needed).
  std::function<std::pair<std::vector<AllPairsOutput>, std::string>(
      const std::filesystem::path& dir, const std::filesystem::path& results,
      const AllPairsAppOptions& options)>
      write_outputs;
};

const std::vector<AllPairsApp>& allpairs_apps();
// The application called `name`; an error listing the known ones otherwise.
const AllPairsApp& find_allpairs_app(const std::string& name);

// The tree drawing script (strata_draw_tree.py) next to this executable, or in ../share/strata
// once installed; empty when neither has it.
std::filesystem::path tree_drawing_script();

}  // namespace strata::cli
