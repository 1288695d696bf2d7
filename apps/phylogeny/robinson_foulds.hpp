#pragma once
// The Robinson-Foulds distance between two trees on the same species: the number of
// bipartitions of the species (splits, one per inner branch) that one tree has and the other
// lacks. Trees count as unrooted, so a rooted tree and its unrooted form have distance 0.

#include <cstddef>

#include "phylogeny/tree.hpp"

namespace strata::apps::phylogeny {

struct TreeDistance {
  std::size_t distance = 0;      // splits in one tree only
  std::size_t splits_first = 0;  // nontrivial splits of each tree (n - 3 when fully resolved)
  std::size_t splits_second = 0;
  // distance / (splits_first + splits_second): 0 identical, 1 nothing shared.
  double normalized() const {
    const std::size_t total = splits_first + splits_second;
    return total == 0 ? 0.0 : static_cast<double>(distance) / static_cast<double>(total);
  }
};

// Compares the trees by their leaves' names; trees whose leaf names differ, or that repeat a
// name, throw strata::Error saying which name.
TreeDistance robinson_foulds(const Tree& first, const Tree& second);

}  // namespace strata::apps::phylogeny
