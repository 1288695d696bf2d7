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

// One application's entry points.
struct AllPairsApp {
  std::string name;
  std::string description;
  std::function<void(const std::filesystem::path& dir, std::size_t items, std::uint64_t seed)>
      generate;
  std::function<std::unique_ptr<allpairs::ApplicationBase>(const std::filesystem::path& dir)> open;
  // Whether the truth was recovered, and a summary.
  std::function<std::pair<bool, std::string>(const std::filesystem::path& dir,
                                             const std::filesystem::path& results)>
      evaluate;
};

const std::vector<AllPairsApp>& allpairs_apps();
// The application called `name`; an error listing the known ones otherwise.
const AllPairsApp& find_allpairs_app(const std::string& name);

}  // namespace strata::cli
