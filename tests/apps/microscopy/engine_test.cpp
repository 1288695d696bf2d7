// The microscopy application under the all-pairs engine (one process): the results file it
// writes recovers the planted rotations and equals the sequential computation, with a device
// cache smaller than the data set; a truncated particle file is skipped when asked and left out
// of the evaluation.
#include "strata/allpairs/engine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "engine_test_support.hpp"
#include "microscopy/fourier_ring_correlation.hpp"
#include "microscopy/microscopy_app.hpp"
#include "microscopy/particle_json.hpp"
#include "sequential_driver.hpp"
#include "strata/allpairs/results_file.hpp"
#include "strata/device/backends.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy {

namespace {

using testing::TempDir;

GenerateOptions particles() {
  GenerateOptions options;  // the NPC-like ring
  options.items = 6;
  options.seed = 7;
  options.localizations = 60;
  return options;
}

// Fewer device slots than the particles: items are evicted and reloaded.
allpairs::EngineOptions engine_options(const std::filesystem::path& output,
                                       const std::string& devices) {
  return engine_testing::engine_options(output, devices, 4);
}

class MicroscopyEngine : public ::testing::TestWithParam<std::string> {};

TEST_P(MicroscopyEngine, TheResultsFileRecoversTheRotationsAndEqualsTheDirectComputation) {
  std::string why;
  if (GetParam() == "opencl" && testing::opencl_test_device(why) == nullptr) GTEST_SKIP() << why;
  if (GetParam() == "cuda" && testing::cuda_test_device(why) == nullptr) GTEST_SKIP() << why;
  TempDir dir;
  const auto data = dir.path() / "particles";
  generate(data, particles());
  const auto application = open(data);
  const auto output = dir.path() / "results.bin";
  const allpairs::EngineReport report = allpairs::run_all_pairs(
      *application, engine_options(output, GetParam()), engine_testing::network());
  EXPECT_EQ(report.pairs_computed, 15u);
  EXPECT_GE(report.loads, 6u);

  const Evaluation evaluation = evaluate(data, output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;

  // The CPU backend gives the sequential run's bits; OpenCL and CUDA sum in another order.
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

INSTANTIATE_TEST_SUITE_P(Backends, MicroscopyEngine, ::testing::Values("cpu", "opencl", "cuda"),
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
      allpairs::run_all_pairs(*application, options, engine_testing::network());
  EXPECT_EQ(report.items_skipped, 1u);
  EXPECT_EQ(report.pairs_computed, 10u);  // C(5, 2)
  const Evaluation evaluation = evaluate(data, options.output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("1 of the 6 particles have no results"), std::string::npos)
      << evaluation.summary;
}

// The fused super-particle: every particle brought into one frame by the global rotations and
// shifts matches the template it was sampled from; stacking the particles at their centroids
// without the registrations does not.
TEST(MicroscopyEngineOutputs, TheFusedParticleMatchesTheTemplate) {
  TempDir dir;
  const auto data = dir.path() / "particles";
  GenerateOptions generated = particles();
  generated.items = 10;
  generated.localizations = 100;
  generate(data, generated);
  const auto application = open(data);
  const auto output = dir.path() / "results.bin";
  allpairs::run_all_pairs(*application, engine_options(output, "cpu"), engine_testing::network());

  const Outputs outputs = write_outputs(data, output);
  ASSERT_EQ(outputs.files.size(), 3u);
  EXPECT_EQ(outputs.files[0].path, dir.path() / "results.fused.csv");
  EXPECT_EQ(outputs.files[1].path, dir.path() / "results.fused.png");
  EXPECT_EQ(outputs.files[2].path, dir.path() / "results.frc.csv");
  EXPECT_NE(outputs.summary.find("Fourier ring correlation resolution"), std::string::npos)
      << outputs.summary;
  EXPECT_NE(outputs.summary.find("correlation of the fused image with the ring template"),
            std::string::npos)
      << outputs.summary;

  std::vector<Particle> particles;
  std::size_t localizations = 0;
  for (std::size_t i = 0; i < application->item_count(); ++i) {
    particles.push_back(parse_particle(
        testing::read_text(application->file_of(static_cast<allpairs::ItemIndex>(i))),
        application->file_of(static_cast<allpairs::ItemIndex>(i))));
    localizations += particles.back().size();
  }
  const auto results = allpairs::read_results<RegistrationResult>(output);
  const Fusion fusion = fuse_particles(particles, results, 8);
  ASSERT_EQ(fusion.localizations.size(), localizations);
  EXPECT_GE(fusion.pairs_used, results.size() * 8 / 10);
  const SiteTemplate ring = make_template(Structure::ring);
  const double sigma = template_sigma(fusion.localizations);
  const std::uint32_t size = rendering_size(fusion.localizations, 1.0);
  const TemplateMatch fused =
      match_template(render_localizations(fusion.localizations, size, 1.0), ring, sigma);

  // The same localizations stacked at their particles' centroids, unrotated.
  std::vector<FusedLocalization> stacked;
  for (std::uint32_t i = 0; i < particles.size(); ++i) {
    double cx = 0, cy = 0;
    for (const Localization& l : particles[i]) {
      cx += l.x / static_cast<double>(particles[i].size());
      cy += l.y / static_cast<double>(particles[i].size());
    }
    for (const Localization& l : particles[i])
      stacked.push_back({static_cast<float>(l.x - cx), static_cast<float>(l.y - cy), l.sigma, i});
  }
  const TemplateMatch naive = match_template(render_localizations(stacked, size, 1.0), ring, sigma);
  EXPECT_GE(fused.correlation, 0.75) << outputs.summary;
  EXPECT_LE(naive.correlation, fused.correlation - 0.2) << naive.correlation;

  // The fused halves (even and odd particles) agree to a finer resolution than the stacked ones.
  const FusedResolution fused_frc = fused_particle_resolution(fusion.localizations, 1.0);
  const FusedResolution naive_frc = fused_particle_resolution(stacked, 1.0);
  ASSERT_TRUE(fused_frc.resolution_nm.has_value());
  ASSERT_TRUE(naive_frc.resolution_nm.has_value());
  EXPECT_LT(*fused_frc.resolution_nm, 0.75 * *naive_frc.resolution_nm)
      << "fused " << *fused_frc.resolution_nm << " nm, stacked " << *naive_frc.resolution_nm;

  // The localization file holds every localization; the image reads back at its size.
  std::ifstream csv(outputs.files[0].path);
  std::string line;
  std::size_t lines = 0;
  std::getline(csv, line);
  EXPECT_EQ(line, "x,y,sigma,particle");
  while (std::getline(csv, line))
    ++lines;
  EXPECT_EQ(lines, localizations);
  const Image8 image = read_png(outputs.files[1].path, 3);
  EXPECT_EQ(image.width, size);
  EXPECT_EQ(image.height, size);
}

}  // namespace
}  // namespace strata::apps::microscopy
