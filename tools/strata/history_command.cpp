#include "history_command.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "strata/base/error.hpp"
#include "strata/base/units.hpp"
#include "strata/runtime/run_history.hpp"
#include "strata/runtime/settings.hpp"

namespace strata::cli {
namespace {

// The input sizes a bucket holds ("0 B", "[4 KiB, 8 KiB)").
std::string bucket_range(unsigned bucket) {
  if (bucket == 0) return "0 B";
  const std::uint64_t low = 1ull << (bucket - 1);
  if (bucket >= 64) return fmt::format(">= {}", format_bytes(low));
  return fmt::format("[{}, {})", format_bytes(low), format_bytes(low << 1));
}

}  // namespace

CLI::App& add_history_command(CLI::App& app, HistoryOptions& options) {
  CLI::App& command = *app.add_subcommand(
      "history",
      "Print the run times a history file has learned (runtime.history) and the "
      "speedups placement takes from them");
  command.add_option("file", options.file,
                     "A history file (default: the history setting, --history or "
                     "STRATA_HISTORY)");
  return command;
}

int run_history_command(const EffectiveConfig& effective, const HistoryOptions& options) {
  const std::string path = options.file.empty()
                               ? effective.config.section<runtime::RuntimeSettings>().history
                               : options.file;
  if (path.empty()) {
    throw Error(
        "no history file: name one (strata history FILE) or set --history / "
        "STRATA_HISTORY");
  }
  if (!std::filesystem::exists(path)) throw Error("run history '" + path + "' does not exist");
  runtime::RunHistory history;
  history.load(path);
  const std::vector<runtime::RunHistory::Entry> entries = history.entries();
  fmt::print("{}: {} entr{}\n", path, entries.size(), entries.size() == 1 ? "y" : "ies");
  if (entries.empty()) return 0;
  fmt::print("{:<24} {:<22} {:<15} {:>7} {:>12} {:>12} {:>8}\n", "operation", "input",
             "executor kind", "runs", "mean (s)", "stddev (s)", "speedup");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const runtime::RunHistory::Entry& entry = entries[i];
    // The speedup is shown once per operation and bucket, on its last row.
    const bool last = i + 1 == entries.size() || entries[i + 1].operation != entry.operation ||
                      entries[i + 1].bucket != entry.bucket;
    std::string speedup;
    if (last) {
      const auto hints =
          history.hints(entry.operation, entry.bucket == 0 ? 0 : 1ull << (entry.bucket - 1));
      const bool both = hints && hints->estimate(runtime::ExecutorKind::cpu) &&
                        hints->estimate(runtime::ExecutorKind::device_compute);
      speedup = both ? fmt::format("{:.3g}x", hints->effective_speedup()) : "-";
    }
    fmt::print("{:<24} {:<22} {:<15} {:>7} {:>12.6g} {:>12.3g} {:>8}\n", entry.operation,
               bucket_range(entry.bucket), runtime::to_string(entry.kind), entry.runs,
               entry.mean_seconds, entry.stddev_seconds, speedup);
  }
  return 0;
}

}  // namespace strata::cli
