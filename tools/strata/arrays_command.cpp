#include "arrays_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#if STRATA_CLI_WITH_HDF5
#include "strata/store/hdf5_file.hpp"
#endif
#include "strata/base/units.hpp"
#include "strata/device/backends.hpp"

namespace strata::cli {

CLI::App& add_arrays_command(CLI::App& app, ArraysOptions& options) {
  CLI::App& arrays = *app.add_subcommand("arrays", "distributed arrays and their files");
  arrays.require_subcommand(1);
  CLI::App& info = *arrays.add_subcommand(
      "info", "list an HDF5 file's datasets with a distribution proposed for this machine");
  info.add_option("file", options.file, "the HDF5 file")->required();
  return arrays;
}

#if STRATA_CLI_WITH_HDF5
namespace {

constexpr std::uint64_t chunk_target_bytes = 512ull << 20;

// Row blocks with chunks of at most chunk_target_bytes and at least one per device.
std::string proposed_distribution(const store::Hdf5Dataset& dataset, std::size_t devices) {
  std::uint64_t elements = 1;
  for (std::uint64_t extent : dataset.shape)
    elements *= extent;
  const std::uint64_t bytes = elements * device::size_of(dataset.type);
  const std::uint64_t rows = dataset.shape[0];
  const std::uint64_t row_bytes = bytes / rows;
  const std::uint64_t by_size = std::max<std::uint64_t>(1, chunk_target_bytes / row_bytes);
  const std::uint64_t by_devices = (rows + devices - 1) / std::max<std::size_t>(1, devices);
  const std::uint64_t rows_per_chunk = std::max<std::uint64_t>(1, std::min(by_size, by_devices));
  const std::uint64_t chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
  return fmt::format("Distribution::row_blocks({}): {} chunk{} of {} over {} device{}",
                     rows_per_chunk, chunks, chunks == 1 ? "" : "s",
                     format_bytes(rows_per_chunk * row_bytes), devices, devices == 1 ? "" : "s");
}

}  // namespace

int run_arrays_command(const EffectiveConfig& effective, const ArraysOptions& options) {
  const std::vector<store::Hdf5Dataset> datasets = store::list_hdf5_datasets(options.file);
  const device::DeviceSet devices = device::discover_devices(effective.config);
  const std::size_t places = std::max<std::size_t>(1, devices.devices.size());
  fmt::print("{}: {} dataset{}\n", options.file, datasets.size(), datasets.size() == 1 ? "" : "s");
  for (const store::Hdf5Dataset& dataset : datasets) {
    if (!dataset.unsupported.empty()) {
      fmt::print("  {}  ({})  not an array Strata holds: {}\n", dataset.name,
                 fmt::join(dataset.shape, "x"), dataset.unsupported);
      continue;
    }
    std::uint64_t elements = 1;
    for (std::uint64_t extent : dataset.shape)
      elements *= extent;
    fmt::print("  {}  {} {}  {}\n    proposed: {}\n", dataset.name, device::to_string(dataset.type),
               fmt::join(dataset.shape, "x"),
               format_bytes(elements * device::size_of(dataset.type)),
               proposed_distribution(dataset, places));
  }
  return 0;
}
#else
int run_arrays_command(const EffectiveConfig&, const ArraysOptions& options) {
  fmt::print(stderr,
             "strata: error: {}: this strata was built without HDF5 (install libhdf5-dev "
             "and configure again)\n",
             options.file);
  return 1;
}
#endif

}  // namespace strata::cli
