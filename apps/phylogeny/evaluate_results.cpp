// evaluate(): the distances of a results file against the true tree.

#include <fmt/format.h>

#include "phylogeny/data_directory.hpp"
#include "phylogeny/phylogeny_app.hpp"
#include "strata/allpairs/results_file.hpp"

namespace strata::apps::phylogeny {

Evaluation evaluate(const std::filesystem::path& dir, const std::filesystem::path& results) {
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
  return evaluate_distances(dir, distances);
}

}  // namespace strata::apps::phylogeny
