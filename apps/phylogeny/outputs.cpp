// write_outputs(): the answer of a run for the biologist — the tree (Newick), the distance
// matrix (PHYLIP) and a drawing of the tree (PNG, by matplotlib when it is installed).
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include "phylogeny/clustering.hpp"
#include "phylogeny/data_directory.hpp"
#include "phylogeny/newick.hpp"
#include "phylogeny/phylogeny_app.hpp"
#include "strata/allpairs/results_file.hpp"

extern char** environ;  // NOLINT: POSIX's process environment, for posix_spawn

namespace strata::apps::phylogeny {
namespace {

// Runs `argv` (argv[0] looked up in PATH) with its standard error to `log`; its exit status, or
// -1 when it could not be started or did not exit normally.
int run_program(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  std::vector<char*> args;
  for (const std::string& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_log(const std::filesystem::path& log) {
  std::ifstream in(log);
  std::string text, line;
  while (std::getline(in, line))
    if (!line.empty()) text = line;  // the last line: the reason
  return text;
}

}  // namespace

DistanceMatrix read_distances(const std::filesystem::path& dir,
                              const std::filesystem::path& results) {
  std::vector<std::string> species;
  for (const auto& file : proteome_files(dir))
    species.push_back(species_of(file));
  const std::size_t n = species.size();
  const auto records = allpairs::read_results<PairCorrelation>(results);

  // Species without a single result were skipped (unreadable input): the tree leaves them out.
  std::vector<bool> present(n, false);
  for (const auto& record : records) {
    if (record.left >= n || record.right >= n || record.left == record.right)
      throw Error(fmt::format("{}: a result for the pair ({}, {}) of {} proteomes",
                              results.string(), record.left, record.right, n));
    present[record.left] = present[record.right] = true;
  }
  std::vector<std::size_t> row(n, 0);  // the matrix row of each present species
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i)
    if (present[i]) {
      row[i] = names.size();
      names.push_back(species[i]);
    }
  DistanceMatrix distances(names);
  std::vector<bool> seen(names.size() * names.size(), false);
  for (const auto& record : records) {
    const std::size_t a = row[record.left], b = row[record.right];
    distances.set(a, b, record.value.distance);
    seen[a * names.size() + b] = seen[b * names.size() + a] = true;
  }
  for (std::size_t a = 0; a < names.size(); ++a)
    for (std::size_t b = a + 1; b < names.size(); ++b)
      if (!seen[a * names.size() + b])
        throw Error(fmt::format("{}: no result for the pair {} and {}; a tree needs every distance",
                                results.string(), names[a], names[b]));
  return distances;
}

std::string to_phylip(const DistanceMatrix& distances) {
  std::size_t width = 10;  // strict PHYLIP: names in 10 columns
  for (const std::string& name : distances.names())
    width = std::max(width, name.size() + 2);  // relaxed PHYLIP: longer names, then spaces
  std::string text = fmt::format("{:>5}\n", distances.size());
  for (std::size_t i = 0; i < distances.size(); ++i) {
    std::string name = distances.names()[i];
    std::replace(name.begin(), name.end(), ' ', '_');
    text += fmt::format("{:<{}}", name, width);
    for (std::size_t j = 0; j < distances.size(); ++j)
      text += fmt::format("{}{:.6f}", j == 0 ? "" : " ", distances.at(i, j));
    text += '\n';
  }
  return text;
}

std::string draw_tree(const std::filesystem::path& newick, const std::filesystem::path& png,
                      const std::filesystem::path& script) {
  if (script.empty() || !std::filesystem::is_regular_file(script))
    return fmt::format("the drawing script {} is missing",
                       script.empty() ? std::string("strata_draw_tree.py") : script.string());
  std::vector<std::string> interpreters;
  // Debian's python3 first: python3-matplotlib installs into it, whatever else PATH finds.
  if (std::filesystem::exists("/usr/bin/python3")) interpreters.emplace_back("/usr/bin/python3");
  interpreters.emplace_back("python3");
  const std::filesystem::path log = output_path(png, ".log");
  std::string reason = "python3 was not found (Debian: apt-get install python3 python3-matplotlib)";
  for (const std::string& python : interpreters) {
    const int status = run_program({python, script.string(), newick.string(), png.string()}, log);
    if (status == 0) {
      std::filesystem::remove(log);
      return {};
    }
    if (status > 0) reason = fmt::format("{}: {}", python, read_log(log));
    if (status != 3) break;  // 3: matplotlib is missing there; try the next interpreter
  }
  std::error_code ignored;
  std::filesystem::remove(log, ignored);
  return reason;
}

Outputs write_outputs(const std::filesystem::path& dir, const std::filesystem::path& results,
                      const std::filesystem::path& draw_script) {
  const DistanceMatrix distances = read_distances(dir, results);
  Outputs outputs;
  const auto tree_file = output_path(results, ".tree.nwk");
  if (distances.size() >= 2) {
    write_text_file(tree_file, to_newick(neighbor_joining(distances)) + "\n");
    outputs.files.push_back(
        {tree_file, "the tree by neighbor joining on D = (1 - C) / 2 (Newick, unrooted)"});
  }
  const auto phylip_file = output_path(results, ".distances.phy");
  write_text_file(phylip_file, to_phylip(distances));
  outputs.files.push_back({phylip_file, "the distance matrix D (PHYLIP, square)"});
  outputs.summary = fmt::format("phylogeny: {} species", distances.size());
  if (distances.size() >= 2) {
    const auto png_file = output_path(results, ".tree.png");
    const std::string failure = draw_tree(tree_file, png_file, draw_script);
    if (failure.empty())
      outputs.files.push_back({png_file, "a drawing of the tree (PNG, matplotlib)"});
    else
      outputs.summary += fmt::format("; the drawing of the tree was skipped: {}", failure);
  }
  return outputs;
}

}  // namespace strata::apps::phylogeny
