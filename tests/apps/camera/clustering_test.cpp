// Single-linkage clustering at a threshold, the threshold from the scores, and agreement of
// partitions (pairwise precision and recall, adjusted Rand index) against values worked by hand.
#include "camera/clustering.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "strata/base/error.hpp"

namespace strata::apps::camera {
namespace {

using Labels = std::vector<std::uint32_t>;

TEST(CameraClustering, PairsAboveTheThresholdJoinGroupsTransitively) {
  const std::vector<ScoredPair> pairs = {{0, 1, 0.5f},
                                         {1, 2, 0.4f},
                                         {0, 2, 0.01f},  // 0-1-2 chained, 0-2 itself below
                                         {3, 4, 0.02f},  // below: apart
                                         {2, 4, -0.3f}};
  EXPECT_EQ(cluster_by_threshold(5, pairs, 0.1f), (Labels{0, 0, 0, 1, 2}));
  EXPECT_EQ(cluster_by_threshold(5, pairs, 0.015f), (Labels{0, 0, 0, 1, 1}));
  EXPECT_EQ(cluster_by_threshold(3, {}, 0.1f), (Labels{0, 1, 2}));
  EXPECT_THROW(cluster_by_threshold(2, pairs, 0.1f), Error);  // names item 2 of 2
}

TEST(CameraClustering, IdenticalPartitionsUpToLabels) {
  const auto agreement = compare_partitions(Labels{0, 0, 1, 1, 2}, Labels{7, 7, 3, 3, 5});
  EXPECT_TRUE(agreement.identical);
  EXPECT_EQ(agreement.found_groups, 3u);
  EXPECT_EQ(agreement.true_groups, 3u);
  EXPECT_DOUBLE_EQ(agreement.pair_precision, 1.0);
  EXPECT_DOUBLE_EQ(agreement.pair_recall, 1.0);
  EXPECT_DOUBLE_EQ(agreement.adjusted_rand, 1.0);
}

TEST(CameraClustering, MergedGroupsLosePrecisionSplitGroupsLoseRecall) {
  // Everything in one group where there are two of two: 2 of the 6 pairs put together belong
  // together; the Rand index is what chance gives (expected 6 * 2 / 6 = 2 = found).
  auto merged = compare_partitions(Labels{0, 0, 0, 0}, Labels{0, 0, 1, 1});
  EXPECT_FALSE(merged.identical);
  EXPECT_DOUBLE_EQ(merged.pair_precision, 2.0 / 6.0);
  EXPECT_DOUBLE_EQ(merged.pair_recall, 1.0);
  EXPECT_NEAR(merged.adjusted_rand, 0.0, 1e-12);

  auto split = compare_partitions(Labels{0, 0, 1, 1}, Labels{0, 0, 0, 0});
  EXPECT_FALSE(split.identical);
  EXPECT_DOUBLE_EQ(split.pair_precision, 1.0);
  EXPECT_DOUBLE_EQ(split.pair_recall, 2.0 / 6.0);
}

TEST(CameraClustering, AdjustedRandIndexOfAWorkedExample) {
  // Found {0,1} {2,3} {4,5}, true {0,1,2} {3,4,5}: pairs together in both 1 + 1 = 2, in found
  // 3, in truth 6, of 15; expected 3 * 6 / 15 = 1.2, maximum (3 + 6) / 2 = 4.5.
  const auto agreement = compare_partitions(Labels{0, 0, 1, 1, 2, 2}, Labels{0, 0, 0, 1, 1, 1});
  EXPECT_NEAR(agreement.adjusted_rand, (2.0 - 1.2) / (4.5 - 1.2), 1e-12);
  EXPECT_DOUBLE_EQ(agreement.pair_precision, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(agreement.pair_recall, 2.0 / 6.0);
}

TEST(CameraClustering, ThresholdIsBonferroniOverThePairsOfTheNullSpreadBelowTheCentre) {
  constexpr std::uint64_t pixels = 10000;  // white sigma 0.01
  // Too few scores below the centre: the white-noise spread; 3 pairs: P(Z > z) = 1e-3 / 3,
  // z = 3.40. The median of all (0.2, a match) is capped at 7.75 white sigmas; the threshold
  // that gives leaves -0.05 alone below it, whose median is below 0: the centre is 0.
  const std::vector<float> few = {-0.05f, 0.3f, 0.2f};
  auto threshold = match_threshold(pixels, few);
  EXPECT_FLOAT_EQ(threshold.null_sigma, 0.01f);
  EXPECT_EQ(threshold.pairs, 3u);
  EXPECT_NEAR(threshold.sigmas, 3.40, 0.01);
  EXPECT_FLOAT_EQ(threshold.centre, 0.0f);
  EXPECT_FLOAT_EQ(threshold.ncc, threshold.sigmas * 0.01f);
  // 20 scores at -0.02 and a match: the median is negative, the centre 0; the 20 below it have a
  // root mean square of 0.02 (21 pairs: z = 3.90).
  std::vector<float> wide(20, -0.02f);
  wide.push_back(0.5f);
  threshold = match_threshold(pixels, wide);
  EXPECT_FLOAT_EQ(threshold.centre, 0.0f);
  EXPECT_EQ(threshold.below_centre, 20u);
  EXPECT_FLOAT_EQ(threshold.null_sigma, 0.02f);
  EXPECT_NEAR(threshold.sigmas, 3.90, 0.01);
  EXPECT_FLOAT_EQ(threshold.ncc, threshold.sigmas * 0.02f);
  // A spread below the white-noise one is not believed.
  const std::vector<float> narrow(20, -0.001f);
  EXPECT_FLOAT_EQ(match_threshold(pixels, narrow).null_sigma, 0.01f);
  // Very many pairs: never above PCE 60 (7.75 sigma).
  const std::vector<float> many(2'000'000, 0.0f);
  EXPECT_NEAR(match_threshold(pixels, many).sigmas, 6.0, 0.2);
  EXPECT_LE(match_threshold(pixels, many).sigmas, std::sqrt(60.0f));
}

// Unrelated scores moved above zero by an artefact the cameras share: the threshold moves with
// them (centred on zero it would join every photo), and the spread is measured about them.
TEST(CameraClustering, TheThresholdFollowsUnrelatedScoresThatAreNotCentredOnZero) {
  constexpr std::uint64_t pixels = 10000;  // white sigma 0.01
  std::vector<float> scores;
  for (int i = 0; i < 40; ++i)  // unrelated: 0.03 +- 0.01, alternately
    scores.push_back(i % 2 == 0 ? 0.02f : 0.04f);
  for (int i = 0; i < 10; ++i)  // matches
    scores.push_back(0.5f);
  const auto threshold = match_threshold(pixels, scores);
  // The lower median of all 50 is 0.04; the threshold it gives leaves the 40 unrelated scores
  // below it, whose lower median, 0.02, is the centre; none below it: the white spread.
  EXPECT_FLOAT_EQ(threshold.centre, 0.02f);
  EXPECT_EQ(threshold.below_centre, 0u);
  EXPECT_FLOAT_EQ(threshold.null_sigma, 0.01f);
  EXPECT_GT(threshold.ncc, 0.04f) << "above every unrelated score";
  EXPECT_LT(threshold.ncc, 0.5f);
  const std::vector<float> centred_on_zero(scores.size(), 0.0f);
  EXPECT_GT(threshold.ncc, match_threshold(pixels, centred_on_zero).ncc);
}

}  // namespace
}  // namespace strata::apps::camera
