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

}  // namespace strata::apps::phylogeny
