#include "backend_checks.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "microscopy/device_layout.hpp"
#include "microscopy/microscopy_app.hpp"
#include "microscopy/microscopy_application.hpp"
#include "sequential_driver.hpp"
#include "strata/device/backends.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy::testing {

namespace L = layout;

void expect_registration_matches_cpu(device::Device& device) {
  TempDir dir;
  GenerateOptions options;
  options.items = 3;
  options.seed = 99;
  options.localizations = 150;  // more than one block (work-group) of localizations
  generate(dir.path(), options);
  const MicroscopyApplication app(dir.path());
  auto cpu = device::make_cpu_device(device::default_block_runner());

  const auto cpu_items = preprocess_all(app, *cpu);
  const auto device_items = preprocess_all(app, device);
  ASSERT_EQ(cpu_items.size(), device_items.size());
  for (std::size_t k = 0; k < cpu_items.size(); ++k) {
    ASSERT_EQ(cpu_items[k].size(), device_items[k].size());
    for (std::size_t i = 0; i < cpu_items[k].size(); ++i)
      EXPECT_NEAR(device_items[k][i], cpu_items[k][i], 1e-4 * (1 + std::abs(cpu_items[k][i])))
          << "item " << k << " float " << i;
  }

  const auto on_cpu = compare_all_pairs(app, *cpu);
  const auto on_device = compare_all_pairs(app, device);
  ASSERT_EQ(on_cpu.size(), on_device.size());
  for (std::size_t k = 0; k < on_cpu.size(); ++k) {
    const RegistrationResult& a = on_cpu[k].result;
    const RegistrationResult& b = on_device[k].result;
    EXPECT_NEAR(std::remainder(a.angle - b.angle, 360.0), 0.0, 0.5) << "pair " << k;
    EXPECT_NEAR(a.score, b.score, 1e-3) << "pair " << k;
    EXPECT_NEAR(a.bhattacharyya, b.bhattacharyya, 1e-3) << "pair " << k;
  }
}

void expect_coarse_scores_match_cpu(device::Device& device) {
  TempDir dir;
  GenerateOptions options;
  options.items = 2;
  options.seed = 5;
  options.localizations = 130;
  generate(dir.path(), options);
  RegistrationOptions registration;
  registration.refinement_rounds = 0;
  const MicroscopyApplication app(dir.path(), registration);
  auto cpu = device::make_cpu_device(device::default_block_runner());
  const auto on_cpu = compare_all_pairs(app, *cpu);
  const auto on_device = compare_all_pairs(app, device);
  ASSERT_EQ(on_cpu.size(), 1u);
  ASSERT_EQ(on_device.size(), 1u);
  for (std::uint32_t g = 0; g < registration.coarse_angles; ++g) {
    const float expected = on_cpu[0].comparison[L::candidate_scores + g];
    EXPECT_NEAR(on_device[0].comparison[L::candidate_scores + g], expected, 1e-4 * expected)
        << "candidate " << g;
  }
}

}  // namespace strata::apps::microscopy::testing
