#include "phylogeny/robinson_foulds.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "strata/base/error.hpp"

namespace strata::apps::phylogeny {
namespace {

// A set of species as bits.
using Split = std::vector<std::uint64_t>;

std::map<std::string, std::size_t> index_leaves(const Tree& tree, const char* which) {
  std::map<std::string, std::size_t> index;
  for (const auto& name : tree.leaf_names())
    if (!index.emplace(name, index.size()).second)
      throw Error(fmt::format("Robinson-Foulds: the {} tree names leaf '{}' twice", which, name));
  return index;
}

// The nontrivial splits of `tree`, each as the side without species 0.
std::set<Split> splits_of(const Tree& tree, const std::map<std::string, std::size_t>& index) {
  const std::size_t n = index.size();
  const std::size_t words = (n + 63) / 64;
  std::vector<Split> below(tree.size(), Split(words, 0));
  std::vector<std::size_t> count(tree.size(), 0);
  const std::vector<NodeIndex> order = tree.preorder();
  std::set<Split> splits;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const NodeIndex node = *it;
    const TreeNode& record = tree.node(node);
    if (record.is_leaf()) {
      const std::size_t leaf = index.at(record.name);
      below[node][leaf / 64] |= std::uint64_t{1} << (leaf % 64);
      count[node] = 1;
    } else {
      for (const NodeIndex child : record.children) {
        for (std::size_t w = 0; w < words; ++w)
          below[node][w] |= below[child][w];
        count[node] += count[child];
      }
    }
    if (node == tree.root() || count[node] < 2 || count[node] + 2 > n) continue;
    Split side = below[node];
    if ((side[0] & 1) != 0) {
      for (std::size_t w = 0; w < words; ++w)
        side[w] = ~side[w];
      if (n % 64 != 0) side[words - 1] &= (std::uint64_t{1} << (n % 64)) - 1;
    }
    splits.insert(std::move(side));
  }
  return splits;
}

}  // namespace

TreeDistance robinson_foulds(const Tree& first, const Tree& second) {
  const auto index = index_leaves(first, "first");
  const auto other = index_leaves(second, "second");
  for (const auto& [name, position] : other)
    if (!index.contains(name))
      throw Error(fmt::format("Robinson-Foulds: leaf '{}' is only in the second tree", name));
  for (const auto& [name, position] : index)
    if (!other.contains(name))
      throw Error(fmt::format("Robinson-Foulds: leaf '{}' is only in the first tree", name));
  const std::set<Split> a = splits_of(first, index);
  const std::set<Split> b = splits_of(second, index);
  TreeDistance result;
  result.splits_first = a.size();
  result.splits_second = b.size();
  for (const auto& split : a)
    if (!b.contains(split)) ++result.distance;
  for (const auto& split : b)
    if (!a.contains(split)) ++result.distance;
  return result;
}

}  // namespace strata::apps::phylogeny
