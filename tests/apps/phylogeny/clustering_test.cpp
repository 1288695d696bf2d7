// Neighbor joining and UPGMA against trees whose distances are known exactly, and the
// Robinson-Foulds distance on small hand-made trees.

#include "phylogeny/clustering.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "phylogeny/newick.hpp"
#include "phylogeny/random_tree.hpp"
#include "phylogeny/robinson_foulds.hpp"
#include "strata/base/error.hpp"
#include "tree_distances.hpp"

namespace strata::apps::phylogeny {
namespace {

using testing::leaf_distances;

std::vector<std::string> names(std::size_t count) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i)
    out.push_back("s" + std::to_string(i));
  return out;
}

TEST(PhylogenyRobinsonFoulds, CountsSplitsInOneTreeOnly) {
  const Tree rooted = parse_newick("((A,B),(C,(D,E)));", "a");
  const Tree unrooted = parse_newick("(A,B,(C,(D,E)));", "b");
  EXPECT_EQ(robinson_foulds(rooted, unrooted).distance, 0u);
  EXPECT_EQ(robinson_foulds(rooted, rooted).splits_first, 2u);  // n - 3

  const Tree swapped = parse_newick("((A,B),(D,(C,E)));", "c");
  const TreeDistance one_move = robinson_foulds(rooted, swapped);
  EXPECT_EQ(one_move.distance, 2u);
  EXPECT_DOUBLE_EQ(one_move.normalized(), 0.5);

  const Tree apart = parse_newick("((A,C),(B,(D,E)));", "d");
  EXPECT_EQ(
      robinson_foulds(parse_newick("((A,B),(C,D),E);", "e"), parse_newick("((A,C),(B,D),E);", "f"))
          .normalized(),
      1.0);
  EXPECT_EQ(robinson_foulds(rooted, apart).distance, 2u);
}

TEST(PhylogenyRobinsonFoulds, RefusesDifferentSpecies) {
  EXPECT_THROW(
      robinson_foulds(parse_newick("((A,B),(C,D));", "a"), parse_newick("((A,B),(C,X));", "b")),
      Error);
  EXPECT_THROW(
      robinson_foulds(parse_newick("((A,B),(C,A));", "a"), parse_newick("((A,B),(C,D));", "b")),
      Error);
}

TEST(PhylogenyClustering, NeighborJoiningRecoversAnAdditiveTree) {
  // A relaxed clock far from a strict one: distances are additive but not ultrametric.
  BranchLengths lengths;
  lengths.clock_deviation = 0.8;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(seed);
    Random random(seed);
    const Tree truth = random_tree(names(17), lengths, random);
    const DistanceMatrix distances = leaf_distances(truth);
    const Tree joined = neighbor_joining(distances);
    EXPECT_EQ(robinson_foulds(joined, truth).distance, 0u);
    // Its branch lengths give back the distances.
    const DistanceMatrix again = leaf_distances(joined);
    for (std::size_t i = 0; i < distances.size(); ++i) {
      const auto row = std::find(again.names().begin(), again.names().end(), distances.names()[i]);
      const std::size_t ai = static_cast<std::size_t>(row - again.names().begin());
      for (std::size_t j = 0; j < distances.size(); ++j) {
        const auto col =
            std::find(again.names().begin(), again.names().end(), distances.names()[j]);
        EXPECT_NEAR(again.at(ai, static_cast<std::size_t>(col - again.names().begin())),
                    distances.at(i, j), 1e-9);
      }
    }
  }
}

TEST(PhylogenyClustering, UpgmaRecoversAClockTreeButNotEveryAdditiveOne) {
  BranchLengths clock;
  clock.clock_deviation = 0;
  Random random(11);
  const Tree truth = random_tree(names(20), clock, random);
  EXPECT_EQ(robinson_foulds(upgma(leaf_distances(truth)), truth).distance, 0u);

  // B's long branch puts A closer to C and D than to its sister B: UPGMA joins A with C.
  const Tree skewed = parse_newick("((A:0.1,B:1.0):0.05,(C:0.3,D:0.3):0.05);", "skewed");
  EXPECT_EQ(robinson_foulds(neighbor_joining(leaf_distances(skewed)), skewed).distance, 0u);
  EXPECT_GT(robinson_foulds(upgma(leaf_distances(skewed)), skewed).distance, 0u);
}

TEST(PhylogenyClustering, SmallestInputs) {
  DistanceMatrix two({"a", "b"});
  two.set(0, 1, 0.4);
  EXPECT_EQ(neighbor_joining(two).leaf_names().size(), 2u);
  EXPECT_EQ(upgma(two).leaf_names().size(), 2u);
  DistanceMatrix three({"a", "b", "c"});
  three.set(0, 1, 0.3);
  three.set(0, 2, 0.5);
  three.set(1, 2, 0.6);
  const Tree star = neighbor_joining(three);
  EXPECT_EQ(star.node(star.root()).children.size(), 3u);
  EXPECT_NEAR(leaf_distances(star).at(0, 1), 0.3, 1e-12);
}

}  // namespace
}  // namespace strata::apps::phylogeny
