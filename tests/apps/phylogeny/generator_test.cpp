// The generator: deterministic files, the true tree over exactly the species written, and
// proteomes of the requested shape.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "phylogeny/data_directory.hpp"
#include "phylogeny/fasta.hpp"
#include "phylogeny/newick.hpp"
#include "phylogeny/phylogeny_app.hpp"
#include "small_data_set.hpp"
#include "temp_directory.hpp"

namespace strata::apps::phylogeny {
namespace {

using testing::small_data_set;
using testing::TempDirectory;

// Every file of the directory: name -> contents.
std::map<std::string, std::string> contents(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    out[entry.path().filename().string()] = read_text_file(entry.path());
  return out;
}

TEST(PhylogenyGenerator, TheSameSeedWritesTheSameFiles) {
  TempDirectory a, b, c;
  generate(a.path(), small_data_set(3, 6));
  generate(b.path(), small_data_set(3, 6));
  generate(c.path(), small_data_set(4, 6));
  EXPECT_EQ(contents(a.path()), contents(b.path()));
  EXPECT_NE(contents(a.path()), contents(c.path()));
}

TEST(PhylogenyGenerator, WritesOneProteomePerLeafOfTheTrueTree) {
  TempDirectory dir;
  GenerateOptions options = small_data_set(5, 12);
  generate(dir.path(), options);
  const auto files = proteome_files(dir.path());
  ASSERT_EQ(files.size(), 12u);
  EXPECT_EQ(files.front().filename(), "species_00.faa.gz");
  EXPECT_EQ(files.back().filename(), "species_11.faa.gz");

  const auto truth_path = dir.path() / truth_file_name;
  const Tree truth = parse_newick(read_text_file(truth_path), truth_path.string());
  std::vector<std::string> leaves = truth.leaf_names();
  std::sort(leaves.begin(), leaves.end());
  std::vector<std::string> species;
  for (const auto& file : files)
    species.push_back(species_of(file));
  EXPECT_EQ(leaves, species);
  for (NodeIndex i = 0; i < truth.size(); ++i)
    EXPECT_TRUE(truth.node(i).is_leaf() || truth.node(i).children.size() == 2);

  for (const auto& file : files) {
    const std::string packed = read_text_file(file);
    const std::string text = gunzip(std::as_bytes(std::span(packed)), file.string());
    const auto proteins = static_cast<std::size_t>(std::count(text.begin(), text.end(), '>'));
    EXPECT_GE(proteins, 1u);
    EXPECT_LE(proteins, options.proteome.proteins_max);
    EXPECT_GT(parse_fasta(text, file.string()).size(), proteins * 20);
  }
}

TEST(PhylogenyGenerator, RegeneratingWithFewerSpeciesLeavesNoStaleProteomes) {
  TempDirectory dir;
  generate(dir.path(), small_data_set(1, 8));
  generate(dir.path(), small_data_set(1, 5));
  EXPECT_EQ(proteome_files(dir.path()).size(), 5u);
}

TEST(PhylogenyGenerator, RefusesTooFewSpecies) {
  TempDirectory dir;
  EXPECT_THROW(generate(dir.path(), small_data_set(1, 2)), Error);
}

}  // namespace
}  // namespace strata::apps::phylogeny
