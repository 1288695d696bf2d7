// The phylogeny application under the all-pairs engine (one process): the results file recovers
// the true tree and equals the sequential computation, with a device cache smaller than the
// data set (items of different slot sizes are evicted and reloaded); a truncated proteome stops
// the run naming the file, or is skipped when asked and left out of the evaluation.

#include "strata/allpairs/engine.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "engine_test_support.hpp"
#include "phylogeny/data_directory.hpp"
#include "phylogeny/newick.hpp"
#include "phylogeny/phylogeny_app.hpp"
#include "phylogeny/robinson_foulds.hpp"
#include "sequential_driver.hpp"
#include "small_data_set.hpp"
#include "strata/allpairs/results_file.hpp"
#include "temp_directory.hpp"
#include "test_devices.hpp"

namespace strata::apps::phylogeny {

namespace {

using testing::TempDirectory;

// Fewer device slots than the species: items are evicted and reloaded.
allpairs::EngineOptions engine_options(const std::filesystem::path& output,
                                       const std::string& devices = "cpu") {
  return engine_testing::engine_options(output, devices, 4);
}

class PhylogenyEngine : public ::testing::TestWithParam<std::string> {};

TEST_P(PhylogenyEngine, TheResultsFileRecoversTheTreeAndEqualsTheDirectComputation) {
  std::string why;
  if (GetParam() == "opencl" && testing::opencl_test_device(&why) == nullptr) GTEST_SKIP() << why;
  if (GetParam() == "cuda" && testing::cuda_test_device(&why) == nullptr) GTEST_SKIP() << why;
  TempDirectory dir;
  const auto data = dir.path() / "proteomes";
  generate(data, testing::small_data_set(6));
  const auto application = open(data);
  const auto output = dir.path() / "results.bin";
  const allpairs::EngineReport report = allpairs::run_all_pairs(
      *application, engine_options(output, GetParam()), engine_testing::network());
  EXPECT_EQ(report.pairs_computed, 45u);
  EXPECT_GE(report.loads, 10u);

  const Evaluation evaluation = evaluate(data, output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;

  const auto results = allpairs::read_results<PairCorrelation>(output);
  auto cpu = testing::make_cpu_test_device();
  const auto direct = testing::run_all_pairs(*application, *cpu);
  ASSERT_EQ(results.size(), direct.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_EQ(results[i].left, direct[i].left);
    ASSERT_EQ(results[i].right, direct[i].right);
    PairCorrelation expected;
    std::memcpy(&expected, direct[i].result.data(), sizeof expected);
    EXPECT_NEAR(results[i].value.correlation, expected.correlation, 1e-5)
        << results[i].left << "," << results[i].right;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PhylogenyEngine, ::testing::Values("cpu", "opencl", "cuda"),
                         [](const auto& backend) { return backend.param; });

// The answer written beside the results file, without the truth: the tree (Newick) is the true
// topology, the PHYLIP matrix reads back to the results' distances, and the tree is drawn where
// matplotlib is installed (configure looked; without it the summary says why it was skipped).
TEST(PhylogenyEngineOutputs, TheTreeTheDistanceMatrixAndTheDrawing) {
  TempDirectory dir;
  const auto data = dir.path() / "proteomes";
  generate(data, testing::small_data_set(6));
  const Tree truth = parse_newick(read_text_file(data / "truth.nwk"), "truth.nwk");
  std::filesystem::remove(data / "truth.nwk");  // not needed for the answer
  const auto application = open(data);
  const auto output = dir.path() / "results.bin";
  allpairs::run_all_pairs(*application, engine_options(output), engine_testing::network());

  const Outputs outputs = write_outputs(data, output, STRATA_DRAW_TREE_SCRIPT);
  ASSERT_GE(outputs.files.size(), 2u);
  EXPECT_EQ(outputs.files[0].path, dir.path() / "results.tree.nwk");
  EXPECT_EQ(outputs.files[1].path, dir.path() / "results.distances.phy");

  const Tree tree = parse_newick(read_text_file(outputs.files[0].path), "results.tree.nwk");
  EXPECT_EQ(robinson_foulds(tree, truth).distance, 0u) << read_text_file(outputs.files[0].path);

  // PHYLIP: the count, then a row per species: its name in 10 columns and n distances.
  const DistanceMatrix distances = read_distances(data, output);
  std::ifstream phylip(outputs.files[1].path);
  std::size_t n = 0;
  phylip >> n;
  ASSERT_EQ(n, 10u);
  std::string line;
  std::getline(phylip, line);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(std::getline(phylip, line));
    ASSERT_GE(line.size(), 10u);
    const std::string name = line.substr(0, 10);
    EXPECT_EQ(name.substr(0, name.find_last_not_of(' ') + 1), distances.names()[i]);
    std::istringstream values(line.substr(10));
    for (std::size_t j = 0; j < n; ++j) {
      double value = -1;
      ASSERT_TRUE(values >> value) << line;
      EXPECT_NEAR(value, distances.at(i, j), 5e-7) << i << "," << j;
    }
  }

#if STRATA_TEST_HAVE_MATPLOTLIB
  ASSERT_EQ(outputs.files.size(), 3u) << outputs.summary;
  EXPECT_EQ(outputs.files[2].path, dir.path() / "results.tree.png");
  const Image8 image = read_png(outputs.files[2].path, 3);
  EXPECT_GT(image.width, 100u);
#else
  EXPECT_NE(outputs.summary.find("the drawing of the tree was skipped"), std::string::npos)
      << outputs.summary;
#endif
  // Without its script the drawing is skipped, saying so.
  const std::string why =
      draw_tree(outputs.files[0].path, dir.path() / "x.png", dir.path() / "missing.py");
  EXPECT_NE(why.find("missing.py"), std::string::npos) << why;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.png"));
}

TEST(PhylogenyEngineInput, ATruncatedProteomeStopsTheRunOrIsSkippedAndLeftOutOfTheTree) {
  TempDirectory dir;
  const auto data = dir.path() / "proteomes";
  generate(data, testing::small_data_set(7));
  const auto application = open(data);
  const auto victim = application->file_of(3);
  const std::string bytes = read_text_file(victim);
  std::ofstream(victim, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));

  try {
    allpairs::run_all_pairs(*application, engine_options(dir.path() / "stopped.bin"),
                            engine_testing::network());
    FAIL() << "the run should stop at the truncated proteome";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(victim.string() + ": truncated gzip stream"),
              std::string::npos)
        << error.what();
  }

  allpairs::EngineOptions options = engine_options(dir.path() / "skipped.bin");
  options.bad_input = allpairs::BadInput::skip;
  const allpairs::EngineReport report =
      allpairs::run_all_pairs(*application, options, engine_testing::network());
  EXPECT_EQ(report.items_skipped, 1u);
  EXPECT_EQ(report.pairs_computed, 36u);  // C(9, 2)
  const Evaluation evaluation = evaluate(data, options.output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("1 of the 10 species have no results"), std::string::npos)
      << evaluation.summary;
}

}  // namespace
}  // namespace strata::apps::phylogeny
