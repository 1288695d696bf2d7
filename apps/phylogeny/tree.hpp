#pragma once
// A phylogenetic tree: nodes with their children, each with the length of the branch to its
// parent, and names at the leaves. Rooted trees have a binary root; unrooted trees (what
// neighbor joining builds) are stored with an arbitrary node of degree 3 as their root.

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace strata::apps::phylogeny {

// Index of a node in its tree.
using NodeIndex = std::size_t;

struct TreeNode {
  std::string name;      // leaves: the species; inner nodes: usually empty
  double length = 0;     // of the branch to the parent (0 at the root)
  NodeIndex parent = 0;  // the root is its own parent
  std::vector<NodeIndex> children;
  bool is_leaf() const { return children.empty(); }
};

class Tree {
 public:
  // A tree of one node, the root.
  Tree();

  NodeIndex root() const { return 0; }
  // Adds a node below `parent` and returns its index.
  NodeIndex add_child(NodeIndex parent, double length, std::string name = {});

  std::size_t size() const { return nodes_.size(); }
  const TreeNode& node(NodeIndex index) const { return nodes_.at(index); }
  TreeNode& node(NodeIndex index) { return nodes_.at(index); }

  // The leaves in depth-first order (children in insertion order).
  std::vector<NodeIndex> leaves() const;
  std::vector<std::string> leaf_names() const;
  // Every node after its parent (depth-first preorder from the root).
  std::vector<NodeIndex> preorder() const;

  // The tree on the leaves named in `keep` only: other leaves go, inner nodes left with one
  // child are merged into it (their branch lengths add up), and a root left with one child
  // gives way to it.
  Tree restricted_to(const std::set<std::string>& keep) const;

 private:
  std::vector<TreeNode> nodes_;
};

}  // namespace strata::apps::phylogeny
