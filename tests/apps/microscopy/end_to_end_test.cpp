// The whole application on generated particles, every pair through a sequential driver on the
// CPU device (no engine): the planted rotations are recovered.
#include <gtest/gtest.h>

#include "microscopy/evaluation.hpp"
#include "microscopy/microscopy_app.hpp"
#include "microscopy/microscopy_application.hpp"
#include "sequential_driver.hpp"
#include "strata/device/backends.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy {
namespace {

Evaluation run_and_evaluate(const GenerateOptions& options) {
  testing::TempDir dir;
  generate(dir.path(), options);
  const MicroscopyApplication app(dir.path());
  auto cpu = device::make_cpu_device(device::default_block_runner());
  const auto results = testing::run_all_pairs(app, *cpu);
  EXPECT_EQ(results.size(), options.items * (options.items - 1) / 2);
  return evaluate_results(dir.path(), results);
}

TEST(MicroscopyEndToEnd, RecoversTheRotationsOfRingParticlesModuloTheirSymmetry) {
  GenerateOptions options;  // the NPC-like ring, 60% of its sites labelled
  options.items = 6;
  options.seed = 8;
  options.localizations = 80;
  const Evaluation evaluation = run_and_evaluate(options);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("modulo 45 deg"), std::string::npos) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("6 of 6 particles within 10 deg"), std::string::npos)
      << evaluation.summary;
}

TEST(MicroscopyEndToEnd, RecoversFullRotationsOfAnAsymmetricLetter) {
  GenerateOptions options;
  options.structure = Structure::letter;
  options.labelling = 0.9;  // a letter's outline needs most of its sites (see the docs)
  options.items = 5;
  options.seed = 8;
  options.localizations = 80;
  const Evaluation evaluation = run_and_evaluate(options);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("modulo 360 deg"), std::string::npos) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("5 of 5 particles within 10 deg"), std::string::npos)
      << evaluation.summary;
}

}  // namespace
}  // namespace strata::apps::microscopy
