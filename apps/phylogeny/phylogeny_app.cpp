// open() and evaluation against the true tree.

#include "phylogeny/phylogeny_app.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

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
  Tree truth = parse_newick(read_text_file(truth_path), truth_path.string());
  std::vector<std::string> species;
  for (const auto& file : proteome_files(dir))
    species.push_back(species_of(file));
  const std::set<std::string> known(species.begin(), species.end());
  const std::set<std::string> measured(distances.names().begin(), distances.names().end());
  for (const auto& name : distances.names())
    if (!known.contains(name))
      throw Error(fmt::format("{}: the distances name '{}', which has no proteome there",
                              dir.string(), name));
  if (measured.size() != distances.size())
    throw Error(fmt::format("{}: the distances name a species twice", dir.string()));

  Evaluation evaluation;
  std::string skipped;
  if (distances.size() < species.size()) {
    skipped = fmt::format(" ({} of the {} species have no results and are left out)",
                          species.size() - distances.size(), species.size());
    truth = truth.restricted_to(measured);
  }
  if (distances.size() < 4) {
    evaluation.summary = fmt::format(
        "phylogeny: {} species with distances{}: too few for a tree with an inner branch",
        distances.size(), skipped);
    return evaluation;
  }

  // -ln C grows about linearly with the substitutions between two species where D = (1 - C) / 2
  // saturates, so it stays closer to additive on trees far from a molecular clock.
  DistanceMatrix log_correlation(distances.names());
  double lowest = std::numeric_limits<double>::infinity();
  double highest = -lowest;
  for (std::size_t i = 0; i < distances.size(); ++i)
    for (std::size_t j = i + 1; j < distances.size(); ++j) {
      const double d = distances.at(i, j);
      lowest = std::min(lowest, d);
      highest = std::max(highest, d);
      log_correlation.set(i, j, -std::log(std::max(1.0 - 2.0 * d, 1e-9)));
    }
  const TreeDistance joined = robinson_foulds(neighbor_joining(distances), truth);
  const TreeDistance clustered = robinson_foulds(upgma(distances), truth);
  const TreeDistance corrected = robinson_foulds(neighbor_joining(log_correlation), truth);
  auto describe = [](const TreeDistance& rf) {
    return fmt::format("{} of {} (normalized {:.3f})", rf.distance,
                       rf.splits_first + rf.splits_second, rf.normalized());
  };

  evaluation.recovered = joined.distance == 0;
  evaluation.summary = fmt::format(
      "phylogeny: {} species{}, distances D {:.4f} .. {:.4f}; neighbor joining on D vs the true "
      "tree: Robinson-Foulds {}, {}; UPGMA on D: {}; neighbor joining on -ln C: {}",
      distances.size(), skipped, lowest, highest, describe(joined),
      evaluation.recovered ? "the true tree recovered" : "the true tree NOT recovered",
      describe(clustered), describe(corrected));
  return evaluation;
}

}  // namespace strata::apps::phylogeny
