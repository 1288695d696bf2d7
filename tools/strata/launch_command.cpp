#include "launch_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "strata/base/error.hpp"

namespace strata::cli {

CLI::App& add_launch_command(CLI::App& app, LaunchOptions& options) {
  CLI::App& launch = *app.add_subcommand(
      "launch", "Run PROGRAM as a cluster of N processes (rank 0 is the driver) through MPI");
  launch.add_option("-n,--processes", options.processes, "Number of processes")
      ->check(CLI::PositiveNumber);
  launch.add_option("command", options.command, "PROGRAM and its arguments (after --)")->required();
  launch.footer("Example: strata launch -n 4 -- ./my_program input.h5");
  return launch;
}

std::vector<std::string> launcher_command(const LaunchOptions& options) {
#if STRATA_HAVE_MPI
  std::vector<std::string> command{STRATA_MPIEXEC, "-n", std::to_string(options.processes),
                                   // more processes than cores is fine (tests, small machines)
                                   "--oversubscribe"};
  if (geteuid() == 0) command.emplace_back("--allow-run-as-root");
  command.insert(command.end(), options.command.begin(), options.command.end());
  return command;
#else
  (void)options;
  throw Error("strata launch: this build has no MPI (install libopenmpi-dev and reconfigure)");
#endif
}

int run_launch_command(const LaunchOptions& options) {
  const std::vector<std::string> command = launcher_command(options);
  std::vector<char*> argv;
  for (const std::string& word : command)
    argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  // Open MPI refuses root without both of these (the flag alone is not enough for mpirun 4.1).
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);          // NOLINT(concurrency-mt-unsafe)
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);  // NOLINT(concurrency-mt-unsafe)
  }
  execvp(argv[0], argv.data());
  fmt::print(stderr, "strata launch: cannot run {}: {}\n", command.front(), std::strerror(errno));
  return 127;
}

}  // namespace strata::cli
