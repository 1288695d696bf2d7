// The `strata` command-line tool: `info`, `config`, `history`, `demo`, `launch`, `allpairs`,
// `arrays`, `store` and `dataset`, each taking one flag per setting.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "allpairs_command.hpp"
#include "arrays_command.hpp"
#include "config_command.hpp"
#include "dataset_command.hpp"
#include "demo_command.hpp"
#include "history_command.hpp"
#include "info_command.hpp"
#include "launch_command.hpp"
#include "setting_flags.hpp"
#include "store_command.hpp"
#include "strata/base/crash_report.hpp"
#include "strata/base/error.hpp"
#include "strata/base/log.hpp"
#include "strata/base/settings.hpp"

namespace {

// Exit statuses besides CLI11's own for malformed command lines.
constexpr int exit_failure = 1;
constexpr int exit_bad_configuration = 2;

}  // namespace

int main(int argc, char** argv) {
  using namespace strata::cli;
  strata::install_crash_report("strata");

  CLI::App app("strata: a runtime for data-intensive, GPU-accelerated science", "strata");
  app.set_version_flag("--version", STRATA_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Settings come from defaults, then STRATA_* environment variables, then flags; "
      "'strata config' lists them.");

  SettingFlags setting_flags;
  setting_flags.add_to(app);
  InfoOptions info_options;
  ConfigOptions config_options;
  HistoryOptions history_options;
  DemoOptions demo_options;
  LaunchOptions launch_options;
  AllPairsOptions allpairs_options;
  ArraysOptions arrays_options;
  StoreOptions store_options;
  DatasetOptions dataset_options;
  CLI::App& info = add_info_command(app, info_options);
  CLI::App& config = add_config_command(app, config_options);
  CLI::App& history = add_history_command(app, history_options);
  CLI::App& demo = add_demo_command(app, demo_options);
  CLI::App& launch = add_launch_command(app, launch_options);
  CLI::App& allpairs = add_allpairs_command(app, allpairs_options, setting_flags);
  CLI::App& arrays = add_arrays_command(app, arrays_options);
  CLI::App& store = add_store_command(app, store_options);
  CLI::App& dataset = add_dataset_command(app, dataset_options);
  for (CLI::App* command : {&info, &config, &history, &demo, &allpairs, &arrays})
    setting_flags.add_to(*command);
  // ... and after `allpairs run`, `allpairs generate`, ...
  for (CLI::App* command : allpairs.get_subcommands(std::function<bool(CLI::App*)>{}))
    setting_flags.add_to(*command);
  for (CLI::App* command : arrays.get_subcommands(std::function<bool(CLI::App*)>{}))
    setting_flags.add_to(*command);
  for (CLI::App* command : dataset.get_subcommands(std::function<bool(CLI::App*)>{}))
    setting_flags.add_to(*command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }

  try {
    const EffectiveConfig effective = setting_flags.resolve();
    strata::set_log_level(effective.config.section<strata::BaseSettings>().log_level);
    if (info.parsed()) return run_info_command(effective, info_options);
    if (config.parsed()) return run_config_command(effective, config_options);
    if (history.parsed()) return run_history_command(effective, history_options);
    if (launch.parsed()) return run_launch_command(launch_options);
    if (allpairs.parsed()) return run_allpairs_command(allpairs, effective, allpairs_options);
    if (arrays.parsed()) return run_arrays_command(effective, arrays_options);
    if (store.parsed()) return run_store_command(store_options);
    if (dataset.parsed()) return run_dataset_command(dataset, effective, dataset_options);
    return run_demo_command(effective, demo_options);
  } catch (const strata::ConfigError& error) {
    fmt::print(stderr, "strata: error: {}\n", error.what());
    return exit_bad_configuration;
  } catch (const std::exception& error) {
    fmt::print(stderr, "strata: error: {}\n", error.what());
    return exit_failure;
  }
}
