// generate(): particles sampled from a known template under rotation, shift, under-labelling,
// localization noise and spurious localizations, with their true poses in truth.json.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <utility>

#include "microscopy/microscopy_app.hpp"
#include "microscopy/particle_json.hpp"
#include "microscopy/random_source.hpp"
#include "microscopy/truth_file.hpp"

namespace strata::apps::microscopy {
namespace {

void check_options(const GenerateOptions& options) {
  auto refuse = [](const std::string& what) {
    throw Error(fmt::format("microscopy generate: {}", what));
  };
  if (options.items < 1) refuse("items must be at least 1");
  if (options.localizations < 1) refuse("localizations must be at least 1");
  if (!(options.labelling > 0 && options.labelling <= 1))
    refuse(fmt::format("labelling {} is not in (0, 1]", options.labelling));
  if (!(options.spurious_fraction >= 0 && options.spurious_fraction < 1))
    refuse(fmt::format("spurious fraction {} is not in [0, 1)", options.spurious_fraction));
  if (!(options.sigma_min > 0 && options.sigma_min <= options.sigma_max))
    refuse(fmt::format("sigma range [{}, {}] is not positive and ordered", options.sigma_min,
                       options.sigma_max));
  if (!(options.max_shift >= 0)) refuse(fmt::format("max shift {} is negative", options.max_shift));
}

Localization noisy(double x, double y, RandomSource& random, const GenerateOptions& options) {
  const double sigma = random.uniform(options.sigma_min, options.sigma_max);
  return {static_cast<float>(x + sigma * random.normal()),
          static_cast<float>(y + sigma * random.normal()), static_cast<float>(sigma)};
}

// One particle of `structure` in `pose`.
Particle sample_particle(const SiteTemplate& structure, const ParticlePose& pose,
                         RandomSource& random, const GenerateOptions& options) {
  std::vector<Site> labelled;
  while (labelled.empty()) {  // a particle with no labelled site would not be picked
    for (const Site& site : structure.sites)
      if (random.chance(options.labelling)) labelled.push_back(site);
  }
  const double angle = pose.angle_degrees * std::numbers::pi / 180.0;
  const double c = std::cos(angle);
  const double s = std::sin(angle);
  const double total = static_cast<double>(options.localizations);
  const double per_site =
      total * (1.0 - options.spurious_fraction) / static_cast<double>(labelled.size());

  Particle particle;
  for (const Site& site : labelled) {
    const double x = c * site.x - s * site.y + pose.tx;
    const double y = s * site.x + c * site.y + pose.ty;
    for (std::uint64_t k = random.poisson(per_site); k > 0; --k)
      particle.push_back(noisy(x, y, random, options));
  }
  // Spurious localizations: uniform over the disc the particle was picked from.
  const double extent = structure.radius + 2.0 * options.sigma_max;
  for (std::uint64_t k = random.poisson(total * options.spurious_fraction); k > 0; --k) {
    const double r = extent * std::sqrt(random.uniform());
    const double phi = random.uniform(0, 2 * std::numbers::pi);
    particle.push_back(
        noisy(pose.tx + r * std::cos(phi), pose.ty + r * std::sin(phi), random, options));
  }
  if (particle.empty()) {  // tiny means can draw nothing at all: keep one blink
    const Site& site = labelled.front();
    particle.push_back(noisy(c * site.x - s * site.y + pose.tx, s * site.x + c * site.y + pose.ty,
                             random, options));
  }
  // Localizations come in the order the fluorophores blinked, not grouped by site.
  for (std::size_t k = particle.size() - 1; k > 0; --k)
    std::swap(particle[k], particle[random.below(k + 1)]);
  return particle;
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out.flush()) throw Error(fmt::format("{}: cannot write", file.string()));
}

}  // namespace

void generate(const std::filesystem::path& dir, const GenerateOptions& options) {
  check_options(options);
  std::filesystem::create_directories(dir);
  const SiteTemplate structure = make_template(options.structure);
  RandomSource random(options.seed);
  GroundTruth truth;
  truth.structure = options.structure;
  truth.symmetry = structure.symmetry;
  for (std::size_t item = 0; item < options.items; ++item) {
    ParticlePose pose;
    pose.file = fmt::format("particle_{:04d}.json", item);
    pose.angle_degrees = random.uniform(0, 360);
    const double shift = options.max_shift * std::sqrt(random.uniform());
    const double direction = random.uniform(0, 2 * std::numbers::pi);
    pose.tx = shift * std::cos(direction);
    pose.ty = shift * std::sin(direction);
    write_text(dir / pose.file,
               particle_to_json(sample_particle(structure, pose, random, options)));
    truth.particles.push_back(std::move(pose));
  }
  write_truth(dir / truth_file_name, truth);
}

}  // namespace strata::apps::microscopy
