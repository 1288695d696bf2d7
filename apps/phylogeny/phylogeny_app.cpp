// open() and evaluation against the true tree.

#include "phylogeny/phylogeny_app.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "phylogeny/clustering.hpp"
#include "phylogeny/data_directory.hpp"
#include "phylogeny/newick.hpp"
#include "phylogeny/robinson_foulds.hpp"

namespace strata::apps::phylogeny {

std::unique_ptr<strata::allpairs::ApplicationBase> open(const std::filesystem::path& dir) {
  return open(dir, AnalysisOptions{});
}

std::unique_ptr<strata::allpairs::ApplicationBase> open(const std::filesystem::path& dir,
                                                        const AnalysisOptions& options) {
  return std::make_unique<PhylogenyApplication>(dir, options);
}

Evaluation evaluate_distances(const std::filesystem::path& dir, const DistanceMatrix& distances) {
  const std::filesystem::path truth_path = dir / truth_file_name;
  const Tree truth = parse_newick(read_text_file(truth_path), truth_path.string());
  std::vector<std::string> species;
  for (const auto& file : proteome_files(dir))
    species.push_back(species_of(file));
  if (species != distances.names())
    throw Error(fmt::format("{}: the distances are not between the {} proteomes of the directory",
                            dir.string(), species.size()));

  const TreeDistance joined = robinson_foulds(neighbor_joining(distances), truth);
  const TreeDistance clustered = robinson_foulds(upgma(distances), truth);
  double lowest = std::numeric_limits<double>::infinity();
  double highest = -lowest;
  for (std::size_t i = 0; i < distances.size(); ++i)
    for (std::size_t j = i + 1; j < distances.size(); ++j) {
      lowest = std::min(lowest, distances.at(i, j));
      highest = std::max(highest, distances.at(i, j));
    }

  Evaluation evaluation;
  evaluation.recovered = joined.distance == 0;
  evaluation.summary = fmt::format(
      "phylogeny: {} species, distances {:.4f} .. {:.4f}; neighbor joining vs the true tree: "
      "Robinson-Foulds {} of {} (normalized {:.3f}){}; UPGMA: {} of {} ({:.3f})",
      distances.size(), lowest, highest, joined.distance,
      joined.splits_first + joined.splits_second, joined.normalized(),
      evaluation.recovered ? ", the true tree recovered" : ", the true tree NOT recovered",
      clustered.distance, clustered.splits_first + clustered.splits_second, clustered.normalized());
  return evaluation;
}

}  // namespace strata::apps::phylogeny
