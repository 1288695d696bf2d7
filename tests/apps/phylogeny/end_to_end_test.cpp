// The application end to end without the engine: parse, preprocess, compare and postprocess for
// every pair through the CPU device and a memory manager, then the true tree recovered.

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "phylogeny/data_directory.hpp"
#include "phylogeny/phylogeny_app.hpp"
#include "sequential_driver.hpp"
#include "small_data_set.hpp"
#include "temp_directory.hpp"
#include "test_devices.hpp"

namespace strata::apps::phylogeny {
namespace {

using testing::TempDirectory;

DistanceMatrix distances_of(const PhylogenyApplication& application,
                            const std::vector<testing::PairRecord>& records) {
  std::vector<std::string> species;
  for (allpairs::ItemIndex i = 0; i < application.item_count(); ++i)
    species.push_back(application.species(i));
  DistanceMatrix distances(species);
  for (const auto& record : records) {
    PairCorrelation value;
    EXPECT_EQ(record.result.size(), sizeof value);
    std::memcpy(&value, record.result.data(), sizeof value);
    EXPECT_NEAR(value.distance, (1 - value.correlation) / 2, 1e-6);
    distances.set(record.left, record.right, value.distance);
  }
  return distances;
}

TEST(PhylogenyEndToEnd, RecoversTheTrueTreeOnTheCpuDevice) {
  TempDirectory dir;
  generate(dir.path(), testing::small_data_set(1));
  const auto application = open(dir.path());
  ASSERT_EQ(application->item_count(), 10u);
  EXPECT_EQ(application->name(), "phylogeny");
  auto cpu = testing::make_cpu_test_device();
  const auto records = testing::run_all_pairs(*application, *cpu);
  ASSERT_EQ(records.size(), 45u);

  const auto& typed = dynamic_cast<const PhylogenyApplication&>(*application);
  const Evaluation evaluation = evaluate_distances(dir.path(), distances_of(typed, records));
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find(
                "Robinson-Foulds 0 of 14 (normalized 0.000), the true tree recovered"),
            std::string::npos)
      << evaluation.summary;
}

TEST(PhylogenyEndToEnd, OpenClGivesTheCpuDevicesCorrelations) {
  PHYLOGENY_REQUIRE_OPENCL(opencl);
  TempDirectory dir;
  generate(dir.path(), testing::small_data_set(8));
  const auto application = open(dir.path(), AnalysisOptions{4});  // PoCL is slow over 20^5 keys
  const auto& typed = dynamic_cast<const PhylogenyApplication&>(*application);
  auto cpu = testing::make_cpu_test_device();
  const DistanceMatrix on_cpu = distances_of(typed, testing::run_all_pairs(*application, *cpu));
  const DistanceMatrix on_opencl =
      distances_of(typed, testing::run_all_pairs(*application, opencl));
  for (std::size_t i = 0; i < on_cpu.size(); ++i)
    for (std::size_t j = i + 1; j < on_cpu.size(); ++j)
      EXPECT_NEAR(on_opencl.at(i, j), on_cpu.at(i, j), 1e-5) << i << "," << j;
  const Evaluation evaluation = evaluate_distances(dir.path(), on_opencl);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
}

TEST(PhylogenyEndToEnd, KSixBuildsVectorsWithTheSortingKernel) {
  TempDirectory dir;
  generate(dir.path(), testing::small_data_set(9, 6));
  const auto application = open(dir.path(), AnalysisOptions{6});
  auto cpu = testing::make_cpu_test_device();
  const auto records = testing::run_all_pairs(*application, *cpu);
  ASSERT_EQ(records.size(), 15u);
  for (const auto& record : records) {
    PairCorrelation value;
    std::memcpy(&value, record.result.data(), sizeof value);
    EXPECT_GT(value.correlation, 0.0f);
    EXPECT_LT(value.correlation, 1.0f);
  }
}

TEST(PhylogenyEndToEnd, AShuffledMatrixIsNotRecovered) {
  TempDirectory dir;
  generate(dir.path(), testing::small_data_set(2));
  const auto application = open(dir.path());
  auto cpu = testing::make_cpu_test_device();
  const auto& typed = dynamic_cast<const PhylogenyApplication&>(*application);
  DistanceMatrix distances = distances_of(typed, testing::run_all_pairs(*application, *cpu));
  // Swap the rows and columns of two species: a different tree.
  DistanceMatrix swapped(distances.names());
  auto relabel = [](std::size_t i) { return i == 0 ? 5 : i == 5 ? 0 : i; };
  for (std::size_t i = 0; i < distances.size(); ++i)
    for (std::size_t j = 0; j < distances.size(); ++j)
      swapped.set(relabel(i), relabel(j), distances.at(i, j));
  const Evaluation evaluation = evaluate_distances(dir.path(), swapped);
  EXPECT_FALSE(evaluation.recovered) << evaluation.summary;
}

TEST(PhylogenyApplication, SlotsGrowWithTheParsedSize) {
  TempDirectory dir;
  generate(dir.path(), testing::small_data_set(3, 4));
  const auto application = open(dir.path(), AnalysisOptions{4});
  // Parsed bytes hold the residues and then the parallel kernels' scratch.
  const std::uint64_t small = parsed_bytes_with_scratch(4, 1000);
  EXPECT_EQ(application->item_bytes(0, small), (2 + 2 * 20'480u) * 4);  // 1,024 padded residues
  EXPECT_LT(application->item_bytes(0, small),
            application->item_bytes(0, parsed_bytes_with_scratch(4, 2000)));
  EXPECT_EQ(application->item_bytes(1, parsed_bytes_with_scratch(4, 10'000'000)),
            (2 + 2 * 160'000u) * 4);  // all 20^4 strings
  const std::string file = read_text_file(application->file_of(0));
  const auto parsed = application->parse(0, std::as_bytes(std::span(file)));
  EXPECT_EQ(parsed_bytes_with_scratch(4, residues_in_parsed(4, parsed.size())), parsed.size());
  EXPECT_GT(application->slot_bytes(), application->item_bytes(0, small));
  EXPECT_EQ(application->comparison_bytes(), 64u * 4);
}

TEST(PhylogenyApplication, ErrorsNameTheDirectoryOrFile) {
  TempDirectory dir;
  const auto missing = dir.path() / "nowhere";
  try {
    open(missing);
    FAIL() << "opened a missing directory";
  } catch (const allpairs::InputError& error) {
    EXPECT_NE(std::string(error.what()).find(missing.string()), std::string::npos);
  }
  EXPECT_THROW(open(dir.path()), allpairs::InputError);  // no proteomes

  generate(dir.path(), testing::small_data_set(4, 3));
  const auto application = open(dir.path());
  const std::string garbage = ">a\nACD\n";  // not gzip
  try {
    application->parse(1, std::as_bytes(std::span(garbage)));
    FAIL() << "parsed garbage";
  } catch (const allpairs::InputError& error) {
    EXPECT_EQ(std::string(error.what()),
              (dir.path() / "species_01.faa.gz").string() + ": not a gzip file");
  }
  EXPECT_THROW(open(dir.path(), AnalysisOptions{9}), Error);
}

TEST(PhylogenyApplication, EvaluationNeedsTheTrueTreeAndTheDirectorysSpecies) {
  TempDirectory dir;
  generate(dir.path(), testing::small_data_set(5, 4));
  EXPECT_THROW(evaluate_distances(dir.path(), DistanceMatrix({"a", "b", "c", "d"})), Error);
  std::filesystem::remove(dir.path() / truth_file_name);
  try {
    evaluate_distances(dir.path(),
                       DistanceMatrix({"species_00", "species_01", "species_02", "species_03"}));
    FAIL() << "evaluated without a true tree";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(truth_file_name), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace strata::apps::phylogeny
