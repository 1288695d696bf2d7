// generate(): the synthetic data set with its true tree.

#include <fmt/format.h>

#include <fstream>

#include "phylogeny/data_directory.hpp"
#include "phylogeny/fasta.hpp"
#include "phylogeny/newick.hpp"
#include "phylogeny/phylogeny_app.hpp"
#include "phylogeny/random.hpp"

namespace strata::apps::phylogeny {
namespace {

constexpr std::string_view species_prefix = "species_";

std::vector<std::string> species_names(std::size_t count) {
  const std::string last = std::to_string(count - 1);
  const std::size_t width = std::max<std::size_t>(2, last.size());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i)
    names.push_back(fmt::format("{}{:0{}}", species_prefix, i, width));
  return names;
}

void remove_earlier_proteomes(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.starts_with(species_prefix) && name.ends_with(".faa.gz"))
      std::filesystem::remove(entry.path());
  }
}

}  // namespace

void generate(const std::filesystem::path& dir, const GenerateOptions& options) {
  if (options.items < 3)
    throw Error(
        fmt::format("phylogeny generator: {} species; a tree needs at least 3", options.items));
  std::filesystem::create_directories(dir);
  remove_earlier_proteomes(dir);

  Random random(options.seed);
  const std::vector<std::string> names = species_names(options.items);
  const Tree tree = random_tree(names, options.branches, random);
  const std::vector<Proteome> proteomes =
      evolve_proteomes(tree, options.proteome, options.evolution, random);
  const std::vector<std::string> leaves = tree.leaf_names();
  for (std::size_t i = 0; i < leaves.size(); ++i)
    write_fasta_gz(dir / (leaves[i] + ".faa.gz"), leaves[i], proteomes[i]);

  const std::filesystem::path truth = dir / truth_file_name;
  std::ofstream out(truth);
  out << to_newick(tree) << '\n';
  out.close();
  if (!out) throw Error(fmt::format("{}: cannot write the true tree", truth.string()));
}

}  // namespace strata::apps::phylogeny
