// The preprocess and compare kernels on the CPU device against plain double-precision sums.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <tuple>

#include "microscopy/device_layout.hpp"
#include "microscopy/microscopy_app.hpp"
#include "microscopy/microscopy_application.hpp"
#include "microscopy/particle_json.hpp"
#include "sequential_driver.hpp"
#include "strata/device/backends.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy {
namespace {

namespace L = layout;
using testing::centred;
using testing::reference_bhattacharyya;
using testing::reference_l2;
using testing::TempDir;

constexpr double degrees_per_radian = 180.0 / std::numbers::pi;

class RegistrationKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    GenerateOptions options;
    options.items = 3;
    options.seed = 21;
    options.localizations = 90;
    generate(dir.path(), options);
    for (const auto& file : particle_files(dir.path()))
      particles.push_back(parse_particle(testing::read_text(file), file));
  }

  TempDir dir;
  std::vector<Particle> particles;
  std::unique_ptr<device::Device> cpu = device::make_cpu_device(device::default_block_runner());
};

void expect_relative(double actual, double expected, double tolerance, const std::string& what) {
  EXPECT_NEAR(actual, expected, tolerance * std::abs(expected)) << what;
}

TEST_F(RegistrationKernels, PreprocessCentresPacksAndSelfScores) {
  const MicroscopyApplication app(dir.path());
  const auto items = testing::preprocess_all(app, *cpu);
  ASSERT_EQ(items.size(), particles.size());
  for (std::size_t k = 0; k < items.size(); ++k) {
    const Particle& p = particles[k];
    const std::vector<float>& item = items[k];
    ASSERT_EQ(item.size(), L::item_floats(p.size()));
    EXPECT_EQ(item[L::item_count], static_cast<float>(p.size()));
    double cx = 0;
    for (const Localization& l : p)
      cx += l.x;
    cx /= static_cast<double>(p.size());
    EXPECT_NEAR(item[L::item_centroid_x], cx, 1e-3);
    const Particle c = centred(p);
    for (std::size_t i = 0; i < p.size(); ++i) {
      EXPECT_NEAR(item[L::item_header + i], c[i].x, 1e-3);
      EXPECT_NEAR(item[L::item_header + p.size() + i], c[i].y, 1e-3);
      EXPECT_EQ(item[L::item_header + 2 * p.size() + i], p[i].sigma);
    }
    expect_relative(item[L::item_self_l2], reference_l2(c, c, 0, 0, 0, app.options().fine_scale),
                    1e-4, "self L2");
    expect_relative(item[L::item_self_bhattacharyya], reference_bhattacharyya(c, c, 0, 0, 0), 1e-4,
                    "self Bhattacharyya");
  }
}

TEST_F(RegistrationKernels, CoarseCandidatesAreMeanShiftedTranslationsAndTheirOverlap) {
  RegistrationOptions options;
  options.coarse_angles = 12;
  options.translation_iterations = 3;
  options.refinement_rounds = 0;
  const MicroscopyApplication app(dir.path(), options);
  const auto pairs = testing::compare_all_pairs(app, *cpu);
  ASSERT_EQ(pairs.size(), 3u);
  const std::uint32_t capacity = L::candidate_capacity(options.coarse_angles);
  for (const auto& pair : pairs) {
    const Particle left = centred(particles[pair.left]);
    const Particle right = centred(particles[pair.right]);
    std::uint32_t best = 0;
    for (std::uint32_t g = 0; g < options.coarse_angles; ++g) {
      const double angle = 2 * std::numbers::pi * g / options.coarse_angles;
      double tx = 0;
      double ty = 0;
      for (std::uint32_t k = 0; k < options.translation_iterations; ++k)
        std::tie(tx, ty) =
            testing::reference_translation_step(left, right, angle, tx, ty, options.coarse_scale);
      const float* candidates = pair.comparison.data() + L::candidate_scores;
      EXPECT_NEAR(candidates[capacity + g], tx, 0.02) << "candidate " << g;
      EXPECT_NEAR(candidates[2 * capacity + g], ty, 0.02) << "candidate " << g;
      expect_relative(candidates[g],
                      reference_l2(left, right, angle, candidates[capacity + g],
                                   candidates[2 * capacity + g], options.coarse_scale),
                      1e-4, "coarse candidate " + std::to_string(g));
      if (candidates[g] > candidates[best]) best = g;
    }
    // Without refinement the result is the best candidate.
    EXPECT_NEAR(pair.comparison[L::state_angle], 2 * std::numbers::pi * best / 12, 1e-5);
    EXPECT_EQ(pair.comparison[L::state_tx], pair.comparison[L::candidate_scores + capacity + best]);
  }
}

TEST_F(RegistrationKernels, ResultIsTheNormalizedOverlapAtALocalOptimum) {
  const MicroscopyApplication app(dir.path());
  const float scale = app.options().fine_scale;
  for (const auto& pair : testing::compare_all_pairs(app, *cpu)) {
    const Particle left = centred(particles[pair.left]);
    const Particle right = centred(particles[pair.right]);
    const double angle = pair.comparison[L::state_angle];
    const double tx = pair.comparison[L::state_tx];
    const double ty = pair.comparison[L::state_ty];
    const double l2 = reference_l2(left, right, angle, tx, ty, scale);
    const double bhattacharyya = reference_bhattacharyya(left, right, angle, tx, ty);
    expect_relative(pair.comparison[L::result_raw_l2], l2, 1e-4, "L2 at the optimum");
    expect_relative(pair.comparison[L::result_raw_bhattacharyya], bhattacharyya, 1e-4,
                    "Bhattacharyya at the optimum");
    const double self_left = reference_l2(left, left, 0, 0, 0, scale);
    const double self_right = reference_l2(right, right, 0, 0, 0, scale);
    expect_relative(pair.result.score, l2 / std::sqrt(self_left * self_right), 1e-4, "score");
    const double bhattacharyya_left = reference_bhattacharyya(left, left, 0, 0, 0);
    const double bhattacharyya_right = reference_bhattacharyya(right, right, 0, 0, 0);
    expect_relative(pair.result.bhattacharyya,
                    bhattacharyya / std::sqrt(bhattacharyya_left * bhattacharyya_right), 1e-4,
                    "Bhattacharyya score");
    EXPECT_NEAR(std::remainder(pair.result.angle - angle * degrees_per_radian, 360.0), 0.0, 1e-3);
    EXPECT_GT(pair.result.angle, -180.0f);
    EXPECT_LE(pair.result.angle, 180.0f);
    // No small move of rotation or translation improves the overlap.
    for (const double da : {-0.01, 0.0, 0.01})
      for (const double dt : {-0.3, 0.3})
        EXPECT_LE(reference_l2(left, right, angle + da, tx + dt, ty - dt, scale), l2 * 1.0001);
  }
}

TEST_F(RegistrationKernels, RecoversTheRotationOfAMovedCopy) {
  TempDir copies;
  const Particle original = particles[0];
  testing::write_text(copies.path() / "a.json", particle_to_json(original));
  for (const double degrees : {37.0, -123.5, 178.0}) {
    testing::write_text(copies.path() / "b.json",
                        particle_to_json(testing::moved(original, degrees, 6.0, -4.0)));
    const MicroscopyApplication app(copies.path());
    const auto pairs = testing::compare_all_pairs(app, *cpu);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_NEAR(std::remainder(pairs[0].result.angle - degrees, 360.0), 0.0, 0.3) << degrees;
    EXPECT_GT(pairs[0].result.score, 0.99) << degrees;
    EXPECT_GT(pairs[0].result.bhattacharyya, 0.99) << degrees;
  }
}

}  // namespace
}  // namespace strata::apps::microscopy
