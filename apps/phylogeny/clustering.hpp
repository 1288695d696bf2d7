#pragma once
// Trees from distance matrices by hierarchical clustering: neighbor joining (Saitou and Nei
// 1987, with Studier and Keppler's Q criterion), which needs no molecular clock and gives an
// unrooted tree, and UPGMA, which assumes a clock and gives a rooted one.

#include "phylogeny/distance_matrix.hpp"
#include "phylogeny/tree.hpp"

namespace strata::apps::phylogeny {

// The neighbor-joining tree of `distances` (at least 2 species): unrooted, stored with its last
// join (a node of degree 3) as the root. Negative branch lengths are set to 0; ties go to the
// pair of lowest indices.
Tree neighbor_joining(const DistanceMatrix& distances);

// The UPGMA tree of `distances` (at least 2 species), rooted at the last merge.
Tree upgma(const DistanceMatrix& distances);

}  // namespace strata::apps::phylogeny
