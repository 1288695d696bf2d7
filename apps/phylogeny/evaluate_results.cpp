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
  DistanceMatrix distances(species);
  std::vector<bool> seen(n * n, false);
  for (const auto& record : allpairs::read_results<PairCorrelation>(results)) {
    if (record.left >= n || record.right >= n || record.left == record.right)
      throw Error(fmt::format("{}: a result for the pair ({}, {}) of {} proteomes",
                              results.string(), record.left, record.right, n));
    distances.set(record.left, record.right, record.value.distance);
    seen[record.left * n + record.right] = seen[record.right * n + record.left] = true;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (!seen[i * n + j])
        throw Error(
            fmt::format("{}: no result for the pair ({}, {}) ({} and {}); a tree needs "
                        "every distance",
                        results.string(), i, j, species[i], species[j]));
  return evaluate_distances(dir, distances);
}

}  // namespace strata::apps::phylogeny
