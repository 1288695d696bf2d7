// The generator's non-unique artefact — an 8x8-periodic pattern every camera of the model shares,
// which zero-mean rows and columns cannot remove — makes photos of different cameras correlate
// on small photos, and the application's Wiener filter removes it from photos of a megapixel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "camera/camera_app.hpp"
#include "camera/image_set.hpp"
#include "test_support.hpp"

namespace strata::apps::camera {
namespace {

struct Scores {
  std::vector<ScoredPair> pairs;
  double other_mean = 0.0;  // mean NCC of photos of different cameras
  float lowest_same = 1.0f, highest_other = -1.0f;
  double white_sigma = 0.0;  // NCC spread of unrelated white patterns: 1 / sqrt(pixels)
};

Scores scores_of_set(const std::filesystem::path& dir, const GenerateOptions& options) {
  generate(dir, options);
  const auto application = open(dir);
  Scores scores;
  for (const auto& result :
       allpairs::run_sequentially(*application, *testing::test_device("cpu"))) {
    Result value;
    std::memcpy(&value, result.result.data(), sizeof value);
    scores.pairs.push_back({result.left, result.right, value.ncc});
  }
  const auto truth = read_truth(dir);
  int others = 0;
  for (const ScoredPair& pair : scores.pairs) {
    if (truth[pair.left].camera == truth[pair.right].camera) {
      scores.lowest_same = std::min(scores.lowest_same, pair.ncc);
    } else {
      scores.highest_other = std::max(scores.highest_other, pair.ncc);
      scores.other_mean += pair.ncc;
      ++others;
    }
  }
  scores.other_mean /= others;
  scores.white_sigma = 1.0 / std::sqrt(static_cast<double>(options.width) * options.height);
  return scores;
}

GenerateOptions with_grid(std::uint32_t width, std::uint32_t height, float grid_sigma) {
  GenerateOptions options;
  options.items = 6;
  options.cameras = 3;
  options.width = width;
  options.height = height;
  options.seed = 11;
  options.grid_sigma = grid_sigma;
  return options;
}

TEST(CameraModelArtefacts, TheGridPatternMakesOtherCamerasCorrelateOnSmallPhotos) {
  testing::TempDir plain, gridded;
  const Scores without = scores_of_set(plain.path(), with_grid(256, 192, 0.0f));
  const Scores with = scores_of_set(gridded.path(), with_grid(256, 192, 1.5f));
  // Without the artefact other cameras' scores are centred on zero; with it they are not: the
  // filter caps each of its spectral peaks, and on 49,152 pixels what is left still counts.
  EXPECT_LT(std::abs(without.other_mean), 2 * without.white_sigma) << without.other_mean;
  EXPECT_GT(with.other_mean, without.other_mean + 3 * with.white_sigma)
      << "with " << with.other_mean << ", without " << without.other_mean;
}

TEST(CameraModelArtefacts, OnMegapixelPhotosTheWienerFilterRemovesTheGridPattern) {
  testing::TempDir dir;
  const GenerateOptions options = with_grid(1024, 768, 1.5f);
  const Scores scores = scores_of_set(dir.path(), options);
  EXPECT_LT(std::abs(scores.other_mean), 3 * scores.white_sigma) << scores.other_mean;
  EXPECT_GT(scores.lowest_same, 3 * scores.highest_other);
  const Evaluation evaluation = evaluate_scores(dir.path(), scores.pairs);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
}

}  // namespace
}  // namespace strata::apps::camera
