// Newick: writing and reading trees, and errors that name the file.

#include "phylogeny/newick.hpp"

#include <gtest/gtest.h>

#include "strata/base/error.hpp"

namespace strata::apps::phylogeny {
namespace {

TEST(PhylogenyNewick, ReadsNamesLengthsAndNesting) {
  const Tree tree = parse_newick(" ((A:0.1, B:0.2)ab:0.05,[a comment] 'C d':0.3); ", "t.nwk");
  EXPECT_EQ(tree.leaf_names(), (std::vector<std::string>{"A", "B", "C d"}));
  const TreeNode& root = tree.node(tree.root());
  ASSERT_EQ(root.children.size(), 2u);
  const TreeNode& ab = tree.node(root.children[0]);
  EXPECT_EQ(ab.name, "ab");
  EXPECT_DOUBLE_EQ(ab.length, 0.05);
  EXPECT_DOUBLE_EQ(tree.node(ab.children[1]).length, 0.2);
  EXPECT_DOUBLE_EQ(tree.node(root.children[1]).length, 0.3);
}

TEST(PhylogenyNewick, WritesWhatItReads) {
  const std::string text = "((A:0.1,B:0.2):0.05,('it''s':0.3,(C:1,D:2.5):0.25):0.125);";
  const Tree tree = parse_newick(text, "t.nwk");
  EXPECT_EQ(to_newick(tree), text);
  EXPECT_EQ(to_newick(parse_newick(to_newick(tree), "again")), text);
}

TEST(PhylogenyNewick, MalformedTextNamesTheOriginAndOffset) {
  for (const char* bad : {"((A,B);", "(A,B));", "(A,B)", "(A:x,B);", "(A B,C);", "A,B;", "(A,B); C",
                          "('A,B);", "(A,B)[;"}) {
    SCOPED_TRACE(bad);
    try {
      parse_newick(bad, "trees/truth.nwk");
      FAIL() << "accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("trees/truth.nwk: malformed Newick at offset"),
                std::string::npos)
          << error.what();
    }
  }
}

TEST(PhylogenyTree, RestrictedToSomeLeavesMergesWhatIsLeftWithOneChild) {
  const Tree tree = parse_newick("(((A:1,B:2):3,C:4):5,(D:6,E:7):8);", "t");
  EXPECT_EQ(to_newick(tree.restricted_to({"A", "B", "C", "D", "E"})), to_newick(tree));
  EXPECT_EQ(to_newick(tree.restricted_to({"A", "C", "D"})), "((A:4,C:4):5,D:14);");
  EXPECT_EQ(to_newick(tree.restricted_to({"A", "B"})), "(A:1,B:2);");
  EXPECT_EQ(to_newick(tree.restricted_to({"E"})), "E;");
  EXPECT_EQ(tree.restricted_to({}).size(), 1u);
}

}  // namespace
}  // namespace strata::apps::phylogeny
