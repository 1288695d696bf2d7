// The whole application without the engine — generate photos, then parse, preprocess, compare
// and postprocess every pair on a device — recovers which photos share a camera, on every
// backend; and the zero-mean steps are what keep the model's shared linear pattern from matching
// different cameras.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "camera/camera_app.hpp"
#include "camera/image_set.hpp"
#include "camera/prnu_kernels.hpp"
#include "test_support.hpp"

namespace strata::apps::camera {
namespace {

using device::KernelArg;
using testing::KernelHarness;
using testing::TempDir;

GenerateOptions small_set() {
  GenerateOptions options;
  options.items = 12;
  options.cameras = 3;
  options.width = 128;
  options.height = 96;
  options.seed = 7;
  return options;
}

Result value_of(const allpairs::RawPairResult& result) {
  Result value;
  std::memcpy(&value, result.result.data(), sizeof value);
  return value;
}

std::vector<ScoredPair> scores_of(const std::vector<allpairs::RawPairResult>& results) {
  std::vector<ScoredPair> pairs;
  for (const auto& result : results)
    pairs.push_back({result.left, result.right, value_of(result).ncc});
  return pairs;
}

class CameraEndToEnd : public ::testing::TestWithParam<std::string> {};

TEST_P(CameraEndToEnd, EveryPairOnADeviceRecoversTheCameras) {
  CAMERA_REQUIRE_DEVICE(device);
  TempDir dir;
  generate(dir.path(), small_set());
  const auto application = open(dir.path());
  const auto results = allpairs::run_sequentially(*application, device);
  const auto pairs = scores_of(results);
  ASSERT_EQ(pairs.size(), 66u);
  const Evaluation evaluation = evaluate_scores(dir.path(), pairs);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;

  // Well separated: every same-camera score far above every other one.
  const auto truth = read_truth(dir.path());
  float lowest_same = 1.0f, highest_other = -1.0f;
  for (const ScoredPair& pair : pairs) {
    if (truth[pair.left].camera == truth[pair.right].camera)
      lowest_same = std::min(lowest_same, pair.ncc);
    else
      highest_other = std::max(highest_other, pair.ncc);
  }
  EXPECT_GT(lowest_same, 3 * highest_other) << evaluation.summary;

  // PCE: every same-camera pair far above 60 (the usual forensic decision threshold), every
  // other pair below it (seen on both backends: same camera 274.9 and up, others 25.8 at most).
  float lowest_same_pce = std::numeric_limits<float>::max(), highest_other_pce = 0.0f;
  for (const auto& result : results) {
    const float pce = value_of(result).pce;
    if (truth[result.left].camera == truth[result.right].camera)
      lowest_same_pce = std::min(lowest_same_pce, pce);
    else
      highest_other_pce = std::max(highest_other_pce, pce);
  }
  std::printf("PCE: same camera at least %.1f, other cameras at most %.1f\n", lowest_same_pce,
              highest_other_pce);
  EXPECT_GT(lowest_same_pce, 3 * 60.0f);
  EXPECT_LT(highest_other_pce, 60.0f);
}

INSTANTIATE_TEST_SUITE_P(Backends, CameraEndToEnd, ::testing::Values("cpu", "opencl"),
                         [](const auto& backend) { return backend.param; });

TEST(CameraOpenCl, ScoresEqualTheCpuScores) {
  std::string why;
  device::Device* opencl = testing::test_device("opencl", &why);
  if (opencl == nullptr) GTEST_SKIP() << why;
  TempDir dir;
  GenerateOptions options = small_set();
  options.items = 5;
  generate(dir.path(), options);
  const auto application = open(dir.path());
  const auto results = allpairs::run_sequentially(*application, *opencl);
  const auto reference = allpairs::run_sequentially(*application, *testing::test_device("cpu"));
  ASSERT_EQ(results.size(), reference.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result got = value_of(results[i]), expected = value_of(reference[i]);
    EXPECT_NEAR(got.ncc, expected.ncc, 1e-4) << results[i].left << "," << results[i].right;
    EXPECT_NEAR(got.pce, expected.pce, 1e-3 * std::abs(expected.pce))
        << results[i].left << "," << results[i].right;
  }
}

// NCC of two float patterns, each made zero-mean and unit-norm here.
double ncc(const std::vector<float>& a, const std::vector<float>& b) {
  double mean_a = 0.0, mean_b = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    mean_a += a[i];
    mean_b += b[i];
  }
  mean_a /= static_cast<double>(a.size());
  mean_b /= static_cast<double>(b.size());
  double ab = 0.0, aa = 0.0, bb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ab += (a[i] - mean_a) * (b[i] - mean_b);
    aa += (a[i] - mean_a) * (a[i] - mean_a);
    bb += (b[i] - mean_b) * (b[i] - mean_b);
  }
  return ab / std::sqrt(aa * bb);
}

TEST(CameraPatterns, WithoutZeroMeanRowsAndColumnsTheLinearPatternMatchesOtherCameras) {
  TempDir dir;
  GenerateOptions options = small_set();
  options.items = 6;
  generate(dir.path(), options);
  const auto application = open(dir.path());
  const auto truth = read_truth(dir.path());
  device::Device& device = *testing::test_device("cpu");
  const CameraApplication& camera = dynamic_cast<const CameraApplication&>(*application);
  const std::uint32_t width = camera.shape().width, height = camera.shape().height;
  const std::size_t pixels = camera.shape().pixels();

  std::vector<std::vector<float>> residuals, patterns;
  for (allpairs::ItemIndex i = 0; i < 6; ++i) {
    const auto parsed = application->parse(i, testing::read_bytes(application->file_of(i)));
    // The luminance and the extraction's scratch room after it.
    const std::span image_room(reinterpret_cast<const float*>(parsed.data()),
                               parsed.size() / sizeof(float));
    KernelHarness harness(device);
    const auto image = harness.upload(image_room);
    const auto residual = harness.zeros(pixels);
    harness.context().launch(residual_kernel(),
                             device::LaunchGeometry{device::Dim3{width, height}, {0, 0, 0}, 2},
                             {KernelArg::value(width), KernelArg::value(height),
                              KernelArg::value(residual_noise_variance),
                              KernelArg::array<float>(image), KernelArg::array<float>(residual)});
    residuals.push_back(harness.download(residual, pixels));
    const auto pattern = harness.zeros(PatternLayout::of(camera.shape()).bytes / sizeof(float));
    extract_pattern(harness.context(), camera.shape(), KernelArg::array<float>(image),
                    KernelArg::array<float>(pattern))
        .wait();
    patterns.push_back(harness.download(pattern, pixels));
  }
  double residual_sum = 0.0, pattern_sum = 0.0;
  int other_pairs = 0;
  for (std::size_t a = 0; a < 6; ++a)
    for (std::size_t b = a + 1; b < 6; ++b) {
      if (truth[a].camera == truth[b].camera) continue;
      residual_sum += ncc(residuals[a], residuals[b]);
      pattern_sum += ncc(patterns[a], patterns[b]);
      ++other_pairs;
    }
  const double white_sigma = 1.0 / std::sqrt(static_cast<double>(pixels));
  const double residual_mean = residual_sum / other_pairs, pattern_mean = pattern_sum / other_pairs;
  EXPECT_GT(residual_mean, 4 * white_sigma) << "residual only";
  EXPECT_LT(std::abs(pattern_mean), white_sigma) << "zero-mean rows and columns";
}

}  // namespace
}  // namespace strata::apps::camera
