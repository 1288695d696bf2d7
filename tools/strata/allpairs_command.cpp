#include "allpairs_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "allpairs_apps.hpp"
#include "progress_line.hpp"
#include "strata/allpairs/engine.hpp"
#include "strata/base/setting_table.hpp"
#include "strata/node/node.hpp"

namespace strata::cli {

namespace {

// The "allpairs" settings the run used, each with where its value came from unless a default:
// "allpairs settings: allpairs_device_cache=64MiB (--device-cache), ...".
std::string allpairs_settings_line(const EffectiveConfig& effective) {
  const auto table = settings();
  std::string line = "allpairs settings:";
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].section != "allpairs") continue;
    const std::string value = table[i].read(effective.config);
    line += fmt::format("{} {}={}", line.back() == ':' ? "" : ",", table[i].name,
                        value.empty() ? "none" : value);
    if (effective.sources[i] != "default") line += fmt::format(" ({})", effective.sources[i]);
  }
  return line;
}

// The backends a run computes on: --devices; else the backends setting where the user set it
// (--backends, STRATA_BACKENDS); else the CPU alone (the setting's default lists every backend,
// and an OpenCL device on the CPU would share its cores). Both given and different: an error.
std::string compute_backends(const EffectiveConfig& effective, const std::string& devices) {
  const std::string& source = effective.source_of("backends");
  if (source == "default") return devices.empty() ? "cpu" : devices;
  const std::string backends = effective.config.get("backends");
  if (!devices.empty() && devices != backends) {
    throw Error(fmt::format("--devices {} and the backends setting {} ({}) disagree: give one",
                            devices, backends, source));
  }
  return backends;
}

std::string bar(const allpairs::Progress& progress) {
  constexpr int width = 30;
  const double fraction =
      progress.total == 0 ? 1.0 : static_cast<double>(progress.done) / progress.total;
  const int filled = static_cast<int>(fraction * width);
  const double rate = progress.seconds > 0 ? progress.done / progress.seconds : 0.0;
  const double left = rate > 0 ? (progress.total - progress.done) / rate : 0.0;
  return fmt::format("[{}{}] {:5.1f}%  {}/{} pairs  {:.0f} pairs/s  ETA {:.0f} s",
                     std::string(filled, '#'), std::string(width - filled, '.'), fraction * 100,
                     progress.done, progress.total, rate, left);
}

nlohmann::json report_json(const allpairs::EngineReport& r) {
  const auto stage = [](const allpairs::StageTime& s) {
    return nlohmann::json{{"count", s.count}, {"seconds", s.seconds}, {"mean", s.mean()}};
  };
  return {{"application", r.application},
          {"ranks", r.ranks},
          {"devices", r.devices},
          {"items", r.items},
          {"pairs_total", r.pairs_total},
          {"pairs_computed", r.pairs_computed},
          {"pairs_resumed", r.pairs_resumed},
          {"pairs_skipped", r.pairs_skipped},
          {"items_skipped", r.items_skipped},
          {"loads", r.loads},
          {"loads_per_item", r.loads_per_item()},
          {"remote_hits", r.remote_hits},
          {"remote_misses", r.remote_misses},
          {"bytes_read", r.bytes_read},
          {"steals_local", r.steals_local},
          {"steals_remote", r.steals_remote},
          {"seconds", r.seconds},
          {"pairs_per_second", r.pairs_per_second()},
          {"model_minimum_seconds", r.model_minimum_seconds()},
          {"efficiency", r.efficiency()},
          {"calibrated_minimum_seconds", r.calibrated_minimum_seconds()},
          {"calibrated_efficiency", r.calibrated_efficiency()},
          {"stages",
           {{"read", stage(r.read)},
            {"parse", stage(r.parse)},
            {"preprocess", stage(r.preprocess)},
            {"compare", stage(r.compare)},
            {"postprocess", stage(r.postprocess)},
            {"calibrated_preprocess", stage(r.calibrated_preprocess)},
            {"calibrated_compare", stage(r.calibrated_compare)}}}};
}

int list_apps() {
  if (allpairs_apps().empty()) fmt::print("this build has no all-pairs applications\n");
  for (const AllPairsApp& app : allpairs_apps())
    fmt::print("{:<12} {}\n", app.name, app.description);
  return 0;
}

int generate(const AllPairsOptions& options) {
  const AllPairsApp& app = find_allpairs_app(options.application);
  app.generate(options.directory, options.items, options.seed);
  fmt::print("generated a {} data set in {}\n", app.name, options.directory);
  return 0;
}

int evaluate(const AllPairsApp& app, const std::filesystem::path& dir,
             const std::filesystem::path& results, const AllPairsAppOptions& app_options) {
  const auto [recovered, summary] = app.evaluate(dir, results, app_options);
  fmt::print("{}\n{}: the truth was {}\n", summary, app.name,
             recovered ? "recovered" : "NOT recovered");
  return recovered ? 0 : 3;
}

int run(const EffectiveConfig& effective, const AllPairsOptions& options) {
  const AllPairsApp& app = find_allpairs_app(options.application);
  const std::filesystem::path dir = options.directory;
  // The caches, hops, jobs and leaf: the "allpairs" section of the effective configuration.
  allpairs::EngineOptions engine = allpairs::EngineOptions::from(effective.config);
  engine.output =
      options.output.empty() ? dir / "results.bin" : std::filesystem::path(options.output);
  engine.resume = options.resume;
  engine.devices = compute_backends(effective, options.devices);
  engine.bad_input = options.skip_bad_input ? allpairs::BadInput::skip : allpairs::BadInput::stop;

  ProgressLine line;
  if (!options.quiet) {
    engine.progress = [&line](const allpairs::Progress& progress) { line.update(bar(progress)); };
  }
  const AllPairsAppOptions app_options{options.crop};
  const std::unique_ptr<allpairs::ApplicationBase> application = app.open(dir, app_options);
  node::Node node(allpairs::node_options(*application, engine));
  const allpairs::EngineReport report = allpairs::run_all_pairs(*application, engine, node);
  if (node.rank() != 0) return 0;
  if (!options.quiet) {
    allpairs::Progress last{report.pairs_total, report.pairs_total, report.seconds};
    line.finish(bar(last));
  }
  fmt::print("{}\n{}\n{}", report.format(), allpairs_settings_line(effective),
             report.runtime_summary);
  fmt::print("results: {}\n", engine.output.string());
  if (!options.report_json.empty()) {
    std::ofstream(options.report_json) << report_json(report).dump(2) << "\n";
  }
  // The answer for the user, beside the results file; then the truth, where the data has one.
  const auto [files, summary] = app.write_outputs(dir, engine.output, app_options);
  for (const AllPairsOutput& file : files)
    fmt::print("output: {} ({})\n", file.path.string(), file.what);
  if (!summary.empty()) fmt::print("{}\n", summary);
  if (!std::filesystem::exists(dir / app.truth_file)) {
    fmt::print(
        "{}: no truth file; nothing to evaluate (`strata allpairs evaluate` checks a run "
        "against a data set's truth)\n",
        (dir / app.truth_file).string());
    return 0;
  }
  return evaluate(app, dir, engine.output, app_options);
}

}  // namespace

CLI::App& add_allpairs_command(CLI::App& app, AllPairsOptions& options,
                               SettingFlags& setting_flags) {
  CLI::App* command = app.add_subcommand(
      "allpairs", "All-pairs applications (rocket): list, generate a data set, run, evaluate");
  command->require_subcommand(1);
  command->add_subcommand("list", "List the applications of this build");

  CLI::App* generate = command->add_subcommand(
      "generate", "Write a data set with known truth (photos, proteomes or particles)");
  generate->add_option("application", options.application, "camera, phylogeny or microscopy")
      ->required();
  generate->add_option("directory", options.directory, "Where to write it")->required();
  generate
      ->add_option("--items", options.items,
                   "Number of items, 2 to 1000000 (default: the application's)")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1000000}));
  generate->add_option("--seed", options.seed, "Seed of the generator");

  CLI::App* run = command->add_subcommand(
      "run",
      "Compare every pair of a data set, write the answer beside the results (groups, tree, "
      "fused particle); then check it against the data set's truth where there is one");
  run->add_option("application", options.application, "camera, phylogeny or microscopy")
      ->required();
  run->add_option("directory", options.directory, "The data set")->required();
  run->add_option("--output", options.output, "Results file (default: DIRECTORY/results.bin)");
  run->add_flag("--resume", options.resume, "Continue an interrupted run from its journal");
  // The "allpairs" settings under short names; the --allpairs-* flags work as well.
  setting_flags.add_alias(*run, "allpairs_device_cache", "--device-cache",
                          "Device cache per device: bytes (256MiB) or slots ('40 slots')");
  setting_flags.add_alias(*run, "allpairs_host_cache", "--host-cache",
                          "Host cache per process: bytes (1GiB) or slots ('200 slots')");
  setting_flags.add_switch_alias(*run, "allpairs_distributed_cache", "--no-distributed", "off",
                                 "Do not ask other processes' caches before loading an item");
  setting_flags.add_switch_alias(*run, "allpairs_cache_aware_stealing", "--no-cache-aware-stealing",
                                 "off", "Thieves take the largest block, not the one they hold");
  setting_flags.add_alias(*run, "allpairs_hops", "--hops",
                          "Candidates asked per distributed cache request (h), 1 to 1024");
  setting_flags.add_alias(*run, "allpairs_jobs_per_device", "--jobs",
                          "Jobs in flight per device (back-pressure), 1 to 65536");
  setting_flags.add_alias(*run, "allpairs_leaf", "--leaf",
                          "Blocks of at most LEAF x LEAF pairs are not split, 1 to 1000000");
  run->add_option("--devices", options.devices,
                  "Backends to compute on: cpu, opencl, cuda (default: the backends setting where "
                  "given, else cpu)");
  run->add_flag("--skip-bad-input", options.skip_bad_input,
                "Skip unreadable items with a warning instead of stopping");
  run->add_flag("--quiet", options.quiet, "No progress bar");
  run->add_option("--report-json", options.report_json, "Also write the report as JSON");
  run->add_option("--crop", options.crop,
                  "camera: compare the centre crop of WxH pixels of every photo (photos of "
                  "several sizes)");

  CLI::App* evaluate_command =
      command->add_subcommand("evaluate", "Check a results file against a data set's truth");
  evaluate_command->add_option("application", options.application)->required();
  evaluate_command->add_option("directory", options.directory)->required();
  evaluate_command->add_option("results", options.output, "Results file")->required();
  evaluate_command->add_option("--crop", options.crop, "camera: the --crop the run was given");
  return *command;
}

int run_allpairs_command(const CLI::App& command, const EffectiveConfig& effective,
                         const AllPairsOptions& options) {
  if (command.got_subcommand("list")) return list_apps();
  if (command.got_subcommand("generate")) return generate(options);
  if (command.got_subcommand("run")) return run(effective, options);
  return evaluate(find_allpairs_app(options.application), options.directory, options.output,
                  AllPairsAppOptions{options.crop});
}

}  // namespace strata::cli
