// The generator: deterministic from its seed, and particles that are the template under the
// recorded pose, under-labelled, noisy, with a few spurious localizations.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "microscopy/microscopy_app.hpp"
#include "microscopy/particle_json.hpp"
#include "microscopy/truth_file.hpp"
#include "strata/allpairs/application.hpp"
#include "test_support.hpp"

namespace strata::apps::microscopy {
namespace {

using testing::read_text;
using testing::TempDir;

GenerateOptions small(std::uint64_t seed) {
  GenerateOptions options;
  options.items = 5;
  options.seed = seed;
  options.localizations = 120;
  return options;
}

TEST(MicroscopyGenerator, SameSeedSameFilesOtherSeedOtherFiles) {
  TempDir a, b, c;
  generate(a.path(), small(7));
  generate(b.path(), small(7));
  generate(c.path(), small(8));
  for (const char* name : {"particle_0000.json", "particle_0004.json", "truth.json"}) {
    EXPECT_EQ(read_text(a.path() / name), read_text(b.path() / name)) << name;
    EXPECT_NE(read_text(a.path() / name), read_text(c.path() / name)) << name;
  }
}

TEST(MicroscopyGenerator, TruthListsEveryParticleWithItsPose) {
  TempDir dir;
  GenerateOptions options = small(3);  // the ring by default
  generate(dir.path(), options);
  const GroundTruth truth = read_truth(dir.path() / truth_file_name);
  EXPECT_EQ(truth.structure, Structure::ring);
  EXPECT_EQ(truth.symmetry, 8);
  ASSERT_EQ(truth.particles.size(), options.items);
  for (const ParticlePose& pose : truth.particles) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / pose.file)) << pose.file;
    EXPECT_GE(pose.angle_degrees, 0.0);
    EXPECT_LT(pose.angle_degrees, 360.0);
    EXPECT_LE(std::hypot(pose.tx, pose.ty), options.max_shift);
  }
}

// Distance from a point to the nearest site of the template in `pose`.
double distance_to_structure(const SiteTemplate& structure, const ParticlePose& pose,
                             const Localization& l) {
  const double angle = pose.angle_degrees * std::numbers::pi / 180.0;
  double nearest = 1e9;
  for (const Site& site : structure.sites) {
    const double x = std::cos(angle) * site.x - std::sin(angle) * site.y + pose.tx;
    const double y = std::sin(angle) * site.x + std::cos(angle) * site.y + pose.ty;
    nearest = std::min(nearest, std::hypot(l.x - x, l.y - y));
  }
  return nearest;
}

TEST(MicroscopyGenerator, ParticlesAreTheTemplateInTheirPose) {
  TempDir dir;
  GenerateOptions options = small(11);
  options.structure = Structure::letter;
  options.items = 6;
  options.localizations = 400;
  generate(dir.path(), options);
  const GroundTruth truth = read_truth(dir.path() / truth_file_name);
  const SiteTemplate structure = make_template(Structure::letter);
  std::size_t total = 0;
  for (const ParticlePose& pose : truth.particles) {
    const Particle particle =
        parse_particle(read_text(dir.path() / pose.file), dir.path() / pose.file);
    total += particle.size();
    std::size_t near = 0;
    std::size_t sites_seen = 0;
    for (const Site& site : structure.sites) {
      const double angle = pose.angle_degrees * std::numbers::pi / 180.0;
      const double x = std::cos(angle) * site.x - std::sin(angle) * site.y + pose.tx;
      const double y = std::sin(angle) * site.x + std::cos(angle) * site.y + pose.ty;
      bool seen = false;
      for (const Localization& l : particle)
        seen = seen || std::hypot(l.x - x, l.y - y) < 1.0;
      sites_seen += seen ? 1 : 0;
    }
    for (const Localization& l : particle) {
      EXPECT_GE(l.sigma, options.sigma_min - 1e-3);
      EXPECT_LE(l.sigma, options.sigma_max + 1e-3);
      near += distance_to_structure(structure, pose, l) < 4 * options.sigma_max ? 1 : 0;
    }
    // Nearly every localization is on a site (the rest are spurious) ...
    EXPECT_GT(static_cast<double>(near), 0.9 * static_cast<double>(particle.size()));
    // ... but not every site is labelled (labelling 0.6 of 16 sites).
    EXPECT_LT(sites_seen, structure.sites.size());
    EXPECT_GT(sites_seen, 3u);
  }
  const double mean = static_cast<double>(total) / static_cast<double>(truth.particles.size());
  EXPECT_NEAR(mean, 400.0, 40.0);
}

TEST(MicroscopyGenerator, TemplatesAndTheirSymmetry) {
  const SiteTemplate ring = make_template(Structure::ring);
  EXPECT_EQ(ring.sites.size(), 16u);
  EXPECT_EQ(ring.symmetry, 8);
  EXPECT_NEAR(ring.radius, 50.0, 1e-9);
  const SiteTemplate letter = make_template(Structure::letter);
  EXPECT_EQ(letter.sites.size(), 16u);
  EXPECT_EQ(letter.symmetry, 1);
  double cx = 0;
  for (const Site& site : letter.sites)
    cx += site.x;
  EXPECT_NEAR(cx, 0.0, 1e-9);  // centred
  EXPECT_EQ(structure_from_string("letter"), Structure::letter);
  EXPECT_THROW(structure_from_string("npc"), Error);
}

TEST(MicroscopyGenerator, RefusesBadOptions) {
  TempDir dir;
  GenerateOptions options = small(1);
  options.labelling = 0;
  EXPECT_THROW(generate(dir.path(), options), Error);
  options = small(1);
  options.sigma_min = 6;
  EXPECT_THROW(generate(dir.path(), options), Error);
  options = small(1);
  options.items = 0;
  EXPECT_THROW(generate(dir.path(), options), Error);
}

TEST(MicroscopyTruth, BadTruthFileIsAnInputErrorNamingIt) {
  TempDir dir;
  const auto file = dir.path() / truth_file_name;
  EXPECT_THROW(read_truth(file), allpairs::InputError);
  testing::write_text(file,
                      R"({"structure": "letter", "symmetry": 1, "particles": [{"file": 3}]})");
  try {
    read_truth(file);
    FAIL() << "no error";
  } catch (const allpairs::InputError& error) {
    EXPECT_NE(std::string(error.what()).find(file.string()), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace strata::apps::microscopy
