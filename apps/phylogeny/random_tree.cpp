#include "phylogeny/random_tree.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace strata::apps::phylogeny {

Tree random_tree(const std::vector<std::string>& names, const BranchLengths& lengths,
                 Random& random) {
  if (names.size() < 2) throw std::invalid_argument("a tree needs at least 2 species");
  if (!(lengths.shortest_step > 0) || !(lengths.longest_step >= lengths.shortest_step) ||
      !(lengths.clock_deviation >= 0))
    throw std::invalid_argument(
        "branch lengths need 0 < shortest_step <= longest_step and clock_deviation >= 0");

  // The topology: split a random lineage until there are enough.
  Tree tree;
  std::vector<NodeIndex> lineages{tree.add_child(tree.root(), 0), tree.add_child(tree.root(), 0)};
  while (lineages.size() < names.size()) {
    const std::size_t chosen = random.below(lineages.size());
    const NodeIndex parent = lineages[chosen];
    lineages[chosen] = tree.add_child(parent, 0);
    lineages.push_back(tree.add_child(parent, 0));
  }

  // Heights above the leaves, children before parents; then lengths under the relaxed clock.
  std::vector<double> height(tree.size(), 0.0);
  const std::vector<NodeIndex> order = tree.preorder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const TreeNode& node = tree.node(*it);
    if (node.is_leaf()) continue;
    double highest_child = 0;
    for (const NodeIndex child : node.children)
      highest_child = std::max(highest_child, height[child]);
    height[*it] = highest_child + random.uniform(lengths.shortest_step, lengths.longest_step);
  }
  const double deviation = lengths.clock_deviation;
  for (const NodeIndex index : order) {
    if (index == tree.root()) continue;
    TreeNode& node = tree.node(index);
    const double rate = std::exp(deviation * random.normal() - deviation * deviation / 2);
    node.length = (height[node.parent] - height[index]) * rate;
  }

  // Names in random order (Fisher-Yates), so a species' index says nothing about its clade.
  std::vector<std::string> shuffled = names;
  for (std::size_t i = shuffled.size(); i > 1; --i)
    std::swap(shuffled[i - 1], shuffled[random.below(i)]);
  for (std::size_t i = 0; i < lineages.size(); ++i)
    tree.node(lineages[i]).name = shuffled[i];
  return tree;
}

}  // namespace strata::apps::phylogeny
