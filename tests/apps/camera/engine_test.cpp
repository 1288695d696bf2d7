// The camera application under the all-pairs engine (one process): the results file it writes
// recovers the cameras, equals the sequential computation, and a truncated photo is skipped when
// asked and left out of the evaluation.
#include "strata/allpairs/engine.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "camera/camera_app.hpp"
#include "strata/allpairs/results_file.hpp"
#include "test_support.hpp"

namespace strata::apps::camera {

cluster::Network& engine_test_network();  // engine_test_main.cpp

namespace {

using testing::TempDir;

GenerateOptions photos() {
  GenerateOptions options;
  options.items = 12;
  options.cameras = 3;
  options.width = 128;
  options.height = 96;
  options.seed = 3;
  return options;
}

allpairs::EngineOptions engine_options(const std::filesystem::path& output,
                                       const std::string& devices) {
  allpairs::EngineOptions options;
  options.output = output;
  options.devices = devices;
  options.config.cpu_threads = 2;
  options.config.kernel_cache_dir = "off";
  options.jobs_per_device = 8;
  options.cache.device_slots = 6;  // fewer than the photos: items are evicted and reloaded
  return options;
}

class CameraEngine : public ::testing::TestWithParam<std::string> {};

TEST_P(CameraEngine, TheResultsFileRecoversTheCamerasAndEqualsTheDirectComputation) {
  CAMERA_REQUIRE_DEVICE(device);
  TempDir dir;
  generate(dir.path() / "photos", photos());
  const auto application = open(dir.path() / "photos");
  const auto output = dir.path() / "results.bin";
  const allpairs::EngineReport report = allpairs::run_all_pairs(
      *application, engine_options(output, GetParam()), engine_test_network());
  EXPECT_EQ(report.pairs_computed, 66u);

  const Evaluation evaluation = evaluate(dir.path() / "photos", output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;

  const auto results = allpairs::read_results<Result>(output);
  const auto direct = allpairs::run_sequentially(*application, device);
  ASSERT_EQ(results.size(), direct.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_EQ(results[i].left, direct[i].left);
    ASSERT_EQ(results[i].right, direct[i].right);
    Result expected;
    std::memcpy(&expected, direct[i].result.data(), sizeof expected);
    EXPECT_NEAR(results[i].value.ncc, expected.ncc, 1e-6)
        << results[i].left << "," << results[i].right;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CameraEngine, ::testing::Values("cpu", "opencl"),
                         [](const auto& backend) { return backend.param; });

// (Stopping at a bad file is the engine's own test; the photo's InputError is application_test's.)
TEST(CameraEngineInput, ATruncatedPhotoIsSkippedWhenAskedAndLeftOutOfTheEvaluation) {
  TempDir dir;
  const auto photos_dir = dir.path() / "photos";
  generate(photos_dir, photos());
  const auto application = open(photos_dir);
  const auto victim = application->file_of(5);
  const auto bytes = testing::read_bytes(victim);
  testing::write_bytes(victim, std::span(bytes).first(bytes.size() / 2));

  allpairs::EngineOptions options = engine_options(dir.path() / "skipped.bin", "cpu");
  options.bad_input = allpairs::BadInput::skip;
  const allpairs::EngineReport report =
      allpairs::run_all_pairs(*application, options, engine_test_network());
  EXPECT_EQ(report.items_skipped, 1u);
  EXPECT_EQ(report.pairs_computed, 55u);  // C(11, 2)
  const Evaluation evaluation = evaluate(photos_dir, options.output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("1 of the 12 photos have no results"), std::string::npos)
      << evaluation.summary;
}

}  // namespace
}  // namespace strata::apps::camera
