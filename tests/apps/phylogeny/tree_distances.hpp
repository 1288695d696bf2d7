#pragma once
// Path lengths between the leaves of a tree (its additive distances), for the clustering tests.

#include <vector>

#include "phylogeny/distance_matrix.hpp"
#include "phylogeny/tree.hpp"

namespace strata::apps::phylogeny::testing {

// The sum of branch lengths on the path between every two leaves, in tree.leaves() order.
inline DistanceMatrix leaf_distances(const Tree& tree) {
  std::vector<std::vector<std::pair<NodeIndex, double>>> neighbours(tree.size());
  for (NodeIndex i = 0; i < tree.size(); ++i)
    if (i != tree.root()) {
      neighbours[i].emplace_back(tree.node(i).parent, tree.node(i).length);
      neighbours[tree.node(i).parent].emplace_back(i, tree.node(i).length);
    }
  const std::vector<NodeIndex> leaves = tree.leaves();
  DistanceMatrix distances(tree.leaf_names());
  for (std::size_t a = 0; a < leaves.size(); ++a) {
    std::vector<double> from(tree.size(), -1.0);
    std::vector<NodeIndex> stack{leaves[a]};
    from[leaves[a]] = 0;
    while (!stack.empty()) {
      const NodeIndex node = stack.back();
      stack.pop_back();
      for (const auto& [next, length] : neighbours[node])
        if (from[next] < 0) {
          from[next] = from[node] + length;
          stack.push_back(next);
        }
    }
    for (std::size_t b = 0; b < leaves.size(); ++b)
      distances.set(a, b, from[leaves[b]]);
  }
  return distances;
}

}  // namespace strata::apps::phylogeny::testing
