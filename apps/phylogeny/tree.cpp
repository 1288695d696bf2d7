#include "phylogeny/tree.hpp"

#include <utility>

namespace strata::apps::phylogeny {

Tree::Tree() {
  nodes_.emplace_back();
}

NodeIndex Tree::add_child(NodeIndex parent, double length, std::string name) {
  const NodeIndex index = nodes_.size();
  TreeNode child;
  child.name = std::move(name);
  child.length = length;
  child.parent = parent;
  nodes_.push_back(std::move(child));
  nodes_.at(parent).children.push_back(index);
  return index;
}

std::vector<NodeIndex> Tree::preorder() const {
  std::vector<NodeIndex> order;
  order.reserve(nodes_.size());
  std::vector<NodeIndex> stack{root()};
  while (!stack.empty()) {
    const NodeIndex index = stack.back();
    stack.pop_back();
    order.push_back(index);
    const auto& children = nodes_[index].children;
    for (auto it = children.rbegin(); it != children.rend(); ++it)
      stack.push_back(*it);
  }
  return order;
}

std::vector<NodeIndex> Tree::leaves() const {
  std::vector<NodeIndex> out;
  for (const NodeIndex index : preorder())
    if (nodes_[index].is_leaf()) out.push_back(index);
  return out;
}

std::vector<std::string> Tree::leaf_names() const {
  std::vector<std::string> out;
  for (const NodeIndex index : leaves())
    out.push_back(nodes_[index].name);
  return out;
}

Tree Tree::restricted_to(const std::set<std::string>& keep) const {
  // Which nodes have a kept leaf below them, children before parents.
  const std::vector<NodeIndex> order = preorder();
  std::vector<bool> kept(nodes_.size(), false);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const TreeNode& node = nodes_[*it];
    if (node.is_leaf()) {
      kept[*it] = keep.contains(node.name);
    } else {
      for (const NodeIndex child : node.children)
        kept[*it] = kept[*it] || kept[child];
    }
  }
  // The node a kept subtree really starts at: down through nodes with a single kept child,
  // adding up the branch lengths passed.
  auto descend = [&](NodeIndex index, double& length) {
    for (;;) {
      const TreeNode& node = nodes_[index];
      NodeIndex only = index;
      std::size_t count = 0;
      for (const NodeIndex child : node.children)
        if (kept[child]) {
          only = child;
          ++count;
        }
      if (count != 1) return index;
      index = only;
      length += nodes_[index].length;
    }
  };
  Tree out;
  if (!kept[root()]) return out;
  double ignored = 0;
  const NodeIndex top = descend(root(), ignored);
  out.nodes_[out.root()].name = nodes_[top].name;
  std::vector<std::pair<NodeIndex, NodeIndex>> stack{{top, out.root()}};  // (here, there)
  while (!stack.empty()) {
    const auto [here, there] = stack.back();
    stack.pop_back();
    for (const NodeIndex child : nodes_[here].children) {
      if (!kept[child]) continue;
      double length = nodes_[child].length;
      const NodeIndex start = descend(child, length);
      stack.emplace_back(start, out.add_child(there, length, nodes_[start].name));
    }
  }
  return out;
}

}  // namespace strata::apps::phylogeny
