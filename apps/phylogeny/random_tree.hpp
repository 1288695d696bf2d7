#pragma once
// Random rooted binary trees for the generator: a Yule (pure-birth) topology, where each step
// splits a uniformly chosen lineage in two, with branch lengths from a relaxed molecular clock.

#include <cstddef>
#include <string>
#include <vector>

#include "phylogeny/random.hpp"
#include "phylogeny/tree.hpp"

namespace strata::apps::phylogeny {

// Branch lengths, in expected substitutions per site. Every inner node lies above the higher of
// its children by a step drawn uniformly from [shortest_step, longest_step], which puts all
// leaves equally far from the root (a molecular clock) with no branch shorter than the
// shortest step; then each branch's length is multiplied by a log-normal rate factor of mean 1
// and log-scale deviation `clock_deviation` (a relaxed clock; 0 keeps the strict one).
struct BranchLengths {
  double shortest_step = 0.02;
  double longest_step = 0.06;
  double clock_deviation = 0.1;
};

// A rooted binary tree whose leaves carry `names` (at least 2) in random order.
Tree random_tree(const std::vector<std::string>& names, const BranchLengths& lengths,
                 Random& random);

}  // namespace strata::apps::phylogeny
