#include "store_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "strata/base/units.hpp"
#if STRATA_CLI_WITH_HDF5
#include "strata/store/hdf5_box_store.hpp"
#endif

namespace strata::cli {

CLI::App& add_store_command(CLI::App& app, StoreOptions& options) {
  CLI::App& store = *app.add_subcommand("store", "data kept by key and box (docs/storage.md)");
  store.require_subcommand(1);
  CLI::App& ls = *store.add_subcommand("ls", "list what an HDF5 box store's directory holds");
  ls.add_option("directory", options.directory, "the store's directory")->required();
  ls.add_flag("--boxes", options.boxes, "every box and its file");
  return store;
}

#if STRATA_CLI_WITH_HDF5
int run_store_command(const StoreOptions& options) {
  if (!std::filesystem::is_directory(options.directory)) {
    fmt::print(stderr, "strata: error: {}: no such directory\n", options.directory);
    return 1;
  }
  store::Hdf5StoreOptions synchronous;
  synchronous.staged = false;
  const store::Hdf5BoxStore opened(options.directory, synchronous);
  std::map<store::DataKey, std::vector<store::StoredBox>> by_key;
  for (const store::StoredBox& stored : opened.boxes())
    by_key[stored.key].push_back(stored);
  fmt::print("{}: {} key{}\n", options.directory, by_key.size(), by_key.size() == 1 ? "" : "s");
  for (const auto& [key, boxes] : by_key) {
    store::Region around = boxes.front().box;
    std::uint64_t bytes = 0;
    for (const store::StoredBox& stored : boxes) {
      for (std::uint32_t d = 0; d < around.dims; ++d) {
        around.lo[d] = std::min(around.lo[d], stored.box.lo[d]);
        around.hi[d] = std::max(around.hi[d], stored.box.hi[d]);
      }
      bytes += stored.box.elements() * device::size_of(stored.type);
    }
    fmt::print("  {}  {}  {} box{} in {}  {}\n", key.describe(),
               device::to_string(boxes.front().type), boxes.size(), boxes.size() == 1 ? "" : "es",
               around.describe(), format_bytes(bytes));
    if (!options.boxes) continue;
    for (const store::StoredBox& stored : boxes)
      fmt::print("    {}  {}\n", stored.box.describe(), opened.file_of(key, stored.box));
  }
  return 0;
}
#else
int run_store_command(const StoreOptions& options) {
  fmt::print(stderr,
             "strata: error: {}: this strata was built without HDF5 (install libhdf5-dev and "
             "configure again)\n",
             options.directory);
  return 1;
}
#endif

}  // namespace strata::cli
