// The microscopy application under the all-pairs engine (one process): the results file it
// writes recovers the planted rotations and equals the sequential computation, with a device
// cache smaller than the data set; a truncated particle file is skipped when asked and left out
// of the evaluation.
#include "strata/allpairs/engine.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "microscopy/microscopy_app.hpp"
#include "sequential_driver.hpp"
#include "strata/allpairs/results_file.hpp"
#include "strata/device/backends.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy {

cluster::Network& engine_test_network();  // engine_test_main.cpp

namespace {

using testing::TempDir;

GenerateOptions particles() {
  GenerateOptions options;  // the NPC-like ring
  options.items = 6;
  options.seed = 7;
  options.localizations = 60;
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
  options.cache.device_slots = 4;  // fewer than the particles: items are evicted and reloaded
  return options;
}

class MicroscopyEngine : public ::testing::TestWithParam<std::string> {};

TEST_P(MicroscopyEngine, TheResultsFileRecoversTheRotationsAndEqualsTheDirectComputation) {
  std::string why;
  if (GetParam() == "opencl" && testing::opencl_test_device(why) == nullptr) GTEST_SKIP() << why;
  TempDir dir;
  const auto data = dir.path() / "particles";
  generate(data, particles());
  const auto application = open(data);
  const auto output = dir.path() / "results.bin";
  const allpairs::EngineReport report = allpairs::run_all_pairs(
      *application, engine_options(output, GetParam()), engine_test_network());
  EXPECT_EQ(report.pairs_computed, 15u);
  EXPECT_GE(report.loads, 6u);

  const Evaluation evaluation = evaluate(data, output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;

  // The CPU backend gives the sequential run's bits; OpenCL sums in another order.
  const bool same_backend = GetParam() == "cpu";
  const auto results = allpairs::read_results<RegistrationResult>(output);
  auto cpu = device::make_cpu_device(device::default_block_runner());
  const auto direct = testing::run_all_pairs(*application, *cpu);
  ASSERT_EQ(results.size(), direct.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_EQ(results[i].left, direct[i].left);
    ASSERT_EQ(results[i].right, direct[i].right);
    const RegistrationResult& got = results[i].value;
    const RegistrationResult& expected = direct[i].value;
    EXPECT_NEAR(std::remainder(got.angle - expected.angle, 360.0), 0.0, same_backend ? 0 : 0.5)
        << results[i].left << "," << results[i].right;
    EXPECT_NEAR(got.score, expected.score, same_backend ? 0 : 1e-3);
    EXPECT_NEAR(got.bhattacharyya, expected.bhattacharyya, same_backend ? 0 : 1e-3);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, MicroscopyEngine, ::testing::Values("cpu", "opencl"),
                         [](const auto& backend) { return backend.param; });

TEST(MicroscopyEngineInput, ATruncatedParticleIsSkippedWhenAskedAndLeftOutOfTheEvaluation) {
  TempDir dir;
  const auto data = dir.path() / "particles";
  generate(data, particles());
  const auto application = open(data);
  const auto victim = application->file_of(3);
  const std::string text = testing::read_text(victim);
  testing::write_text(victim, text.substr(0, text.size() / 2));

  allpairs::EngineOptions options = engine_options(dir.path() / "skipped.bin", "cpu");
  options.bad_input = allpairs::BadInput::skip;
  const allpairs::EngineReport report =
      allpairs::run_all_pairs(*application, options, engine_test_network());
  EXPECT_EQ(report.items_skipped, 1u);
  EXPECT_EQ(report.pairs_computed, 10u);  // C(5, 2)
  const Evaluation evaluation = evaluate(data, options.output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("1 of the 6 particles have no results"), std::string::npos)
      << evaluation.summary;
}

}  // namespace
}  // namespace strata::apps::microscopy
