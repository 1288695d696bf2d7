// evaluate(): the distances of a results file against the true tree.

#include "phylogeny/phylogeny_app.hpp"

namespace strata::apps::phylogeny {

Evaluation evaluate(const std::filesystem::path& dir, const std::filesystem::path& results) {
  return evaluate_distances(dir, read_distances(dir, results));
}

}  // namespace strata::apps::phylogeny
