// The application's files, sizes and errors, and the evaluation of results against the truth.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "microscopy/device_layout.hpp"
#include "microscopy/evaluation.hpp"
#include "microscopy/microscopy_application.hpp"
#include "microscopy/truth_file.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy {
namespace {

using testing::TempDir;
using testing::write_text;

GenerateOptions small() {
  GenerateOptions options;
  options.structure = Structure::letter;
  options.items = 6;
  options.seed = 4;
  options.localizations = 60;
  return options;
}

template <class Body>
std::string input_error_of(Body&& body) {
  try {
    body();
  } catch (const allpairs::InputError& error) {
    return error.what();
  }
  return "no InputError";
}

TEST(MicroscopyApplication, ListsParticleFilesByNameWithoutTheTruth) {
  TempDir dir;
  generate(dir.path(), small());
  write_text(dir.path() / "notes.txt", "not a particle");
  const auto app = open(dir.path());
  EXPECT_EQ(app->name(), "microscopy");
  ASSERT_EQ(app->item_count(), 6u);
  EXPECT_EQ(app->file_of(0).filename(), "particle_0000.json");
  EXPECT_EQ(app->file_of(5).filename(), "particle_0005.json");
  EXPECT_EQ(app->result_bytes(), sizeof(RegistrationResult));
  // Slots are sized by the localizations per particle (about 60 here).
  EXPECT_GT(app->slot_bytes(), layout::item_floats(40) * 4);
  EXPECT_LT(app->slot_bytes(), layout::item_floats(90) * 4);
  EXPECT_EQ(app->item_bytes(0, layout::parsed_floats(55) * 4), layout::item_floats(55) * 4);
  EXPECT_THROW(app->item_bytes(0, 4 * 5), Error);
}

TEST(MicroscopyApplication, MissingOrEmptyDirectoryIsNamed) {
  TempDir dir;
  const auto missing = dir.path() / "nowhere";
  EXPECT_NE(input_error_of([&] { open(missing); }).find(missing.string()), std::string::npos);
  EXPECT_NE(input_error_of([&] { open(dir.path()); }).find("no particle files"), std::string::npos);
}

TEST(MicroscopyApplication, CorruptParticleFileIsNamedByParse) {
  TempDir dir;
  generate(dir.path(), small());
  const auto app = open(dir.path());
  const std::string text = testing::read_text(app->file_of(3));
  const std::string cut = text.substr(0, text.size() / 2);
  const std::string message =
      input_error_of([&] { app->parse(3, std::as_bytes(std::span(cut.data(), cut.size()))); });
  EXPECT_NE(message.find(app->file_of(3).string()), std::string::npos) << message;
  EXPECT_NE(message.find("malformed JSON"), std::string::npos) << message;
}

TEST(MicroscopyApplication, ParseGivesCountThenLocalizations) {
  TempDir dir;
  write_text(dir.path() / "p.json", R"({"localizations": [[1, 2, 3], [4, 5, 6]]})");
  const auto app = open(dir.path());
  const std::string text = testing::read_text(app->file_of(0));
  const auto bytes = app->parse(0, std::as_bytes(std::span(text.data(), text.size())));
  ASSERT_EQ(bytes.size(), layout::parsed_floats(2) * 4);
  std::vector<float> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  EXPECT_EQ(values, (std::vector<float>{2, 1, 2, 3, 4, 5, 6}));
}

TEST(MicroscopyApplication, PostprocessReportsDegreesInHalfOpenRange) {
  TempDir dir;
  write_text(dir.path() / "p.json", R"({"localizations": [[1, 2, 3]]})");
  const MicroscopyApplication app(dir.path());
  std::vector<float> comparison(app.comparison_bytes() / 4, 0.0f);
  comparison[layout::result_score] = 0.75f;
  comparison[layout::result_bhattacharyya] = 0.5f;
  comparison[layout::state_angle] = static_cast<float>(1.5 * std::numbers::pi);  // 270 degrees
  const RegistrationResult result = app.postprocess(0, 1, std::as_bytes(std::span(comparison)));
  EXPECT_FLOAT_EQ(result.score, 0.75f);
  EXPECT_FLOAT_EQ(result.bhattacharyya, 0.5f);
  EXPECT_NEAR(result.angle, -90.0f, 1e-4);
}

// Results with each pair's true relative rotation plus `error` degrees.
std::vector<allpairs::PairResult<RegistrationResult>> results_with_error(const GroundTruth& truth,
                                                                         double error_every_third) {
  std::vector<allpairs::PairResult<RegistrationResult>> results;
  const auto n = static_cast<std::uint32_t>(truth.particles.size());
  std::size_t k = 0;
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = a + 1; b < n; ++b, ++k) {
      double angle = truth.particles[b].angle_degrees - truth.particles[a].angle_degrees;
      if (k % 3 == 0) angle += error_every_third;
      angle = std::remainder(angle, 360.0);
      results.push_back({a, b, {0.8f, static_cast<float>(angle), 0.7f}});
    }
  }
  return results;
}

TEST(MicroscopyEvaluation, ExactRotationsAreRecovered) {
  TempDir dir;
  generate(dir.path(), small());
  const GroundTruth truth = read_truth(dir.path() / truth_file_name);
  const Evaluation evaluation = evaluate_results(dir.path(), results_with_error(truth, 4.0));
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("15 of 15 pairs (100.0%) within 10 deg"), std::string::npos)
      << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("truth recovered"), std::string::npos);
}

TEST(MicroscopyEvaluation, ManyWrongRotationsAreNotRecovered) {
  TempDir dir;
  generate(dir.path(), small());
  const GroundTruth truth = read_truth(dir.path() / truth_file_name);
  // A third of the pairs 90 degrees off.
  const Evaluation evaluation = evaluate_results(dir.path(), results_with_error(truth, 90.0));
  EXPECT_FALSE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("10 of 15 pairs"), std::string::npos) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("NOT recovered"), std::string::npos);
}

TEST(MicroscopyEvaluation, MissingPairsCountAgainstRecovery) {
  TempDir dir;
  generate(dir.path(), small());
  const GroundTruth truth = read_truth(dir.path() / truth_file_name);
  auto results = results_with_error(truth, 0.0);
  results.resize(12);  // 12 of 15 pairs: 80%
  const Evaluation evaluation = evaluate_results(dir.path(), results);
  EXPECT_FALSE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("12 of 15 pairs registered"), std::string::npos)
      << evaluation.summary;
}

TEST(MicroscopyEvaluation, ParticlesWithoutResultsAreLeftOut) {
  TempDir dir;
  generate(dir.path(), small());
  const GroundTruth truth = read_truth(dir.path() / truth_file_name);
  std::vector<allpairs::PairResult<RegistrationResult>> results;
  for (const auto& result : results_with_error(truth, 0.0))
    if (result.left != 2 && result.right != 2) results.push_back(result);  // particle 2 skipped
  const Evaluation evaluation = evaluate_results(dir.path(), results);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("1 of the 6 particles have no results"), std::string::npos)
      << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("10 of 10 pairs registered"), std::string::npos)
      << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("5 of 5 particles within 10 deg"), std::string::npos)
      << evaluation.summary;
}

TEST(MicroscopyEvaluation, RotationsCountModuloTheSymmetry) {
  TempDir dir;
  GenerateOptions options = small();
  options.structure = Structure::ring;
  generate(dir.path(), options);
  const GroundTruth truth = read_truth(dir.path() / truth_file_name);
  // 45 degrees off is no error for an 8-fold ring.
  const Evaluation evaluation = evaluate_results(dir.path(), results_with_error(truth, 45.0));
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
}

TEST(MicroscopyEvaluation, MissingTruthIsAnInputErrorNamingIt) {
  TempDir dir;
  generate(dir.path(), small());
  std::filesystem::remove(dir.path() / truth_file_name);
  const std::string message = input_error_of([&] { evaluate_results(dir.path(), {}); });
  EXPECT_NE(message.find((dir.path() / truth_file_name).string()), std::string::npos) << message;
}

}  // namespace
}  // namespace strata::apps::microscopy
