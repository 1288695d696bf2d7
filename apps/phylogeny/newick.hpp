#pragma once
// Trees in the Newick format: "((A:0.1,B:0.2):0.05,C:0.3);" — names (quoted where they need
// it), branch lengths, nested parentheses, [comments].

#include <string>
#include <string_view>

#include "phylogeny/tree.hpp"

namespace strata::apps::phylogeny {

// The tree in Newick with every branch length (none at the root), ending in ";".
std::string to_newick(const Tree& tree);

// Parses one Newick tree; malformed text throws strata::Error naming `origin` (e.g. the file)
// and the offset.
Tree parse_newick(std::string_view text, const std::string& origin);

}  // namespace strata::apps::phylogeny
