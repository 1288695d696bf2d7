#pragma once
// Localization-microscopy particle fusion (the rocket paper's §5.3; Heydarian et al., Nat Methods
// 2018): all-to-all registration of particles, each pair scored by the GMM L2 similarity and the
// Bhattacharyya overlap at the best rotation. The entry points the `strata allpairs microscopy`
// command and the tests use: generate a data set with known poses, open it as an all-pairs
// application, evaluate a results file against the truth.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "common/outputs.hpp"
#include "microscopy/fusion.hpp"
#include "microscopy/registration_options.hpp"
#include "microscopy/site_template.hpp"
#include "strata/allpairs/application.hpp"

namespace strata::apps::microscopy {

// What generate() makes: `items` particles of one template, each rotated at random, under-
// labelled, with several localizations per labelled site and a few spurious ones.
struct GenerateOptions {
  std::size_t items = 24;
  std::uint64_t seed = 1;
  Structure structure = Structure::ring;
  // Mean localizations per particle (the paper's particles have 1000-2000).
  std::size_t localizations = 150;
  double labelling = 0.6;           // probability that a binding site is labelled
  double spurious_fraction = 0.05;  // localizations not on any site
  double sigma_min = 2.0;           // localization uncertainty range (nm), uniform per localization
  double sigma_max = 5.0;
  double max_shift = 10.0;  // particles are shifted by up to this much (nm)
};

// Writes particle_NNNN.json files and truth.json into `dir` (created if missing).
void generate(const std::filesystem::path& dir, const GenerateOptions& options);

// The application over the particle files of `dir` (every *.json but truth.json, by name).
std::unique_ptr<strata::allpairs::ApplicationBase> open(const std::filesystem::path& dir);
std::unique_ptr<strata::allpairs::ApplicationBase> open(const std::filesystem::path& dir,
                                                        const RegistrationOptions& options);

struct Evaluation {
  bool recovered = false;
  std::string summary;
};

// Compares the relative rotations in `results` with the truth in `dir`: recovered when at least
// 90% of all pairs of particles have a result within 10 degrees of the true relative rotation
// (modulo the template's symmetry); particles with no result at all (skipped files) are left
// out. The summary also gives the global rotations recovered from all pairs.
Evaluation evaluate(const std::filesystem::path& dir, const std::filesystem::path& results);

// Writes the answer of a run beside its results file (results.bin -> results.*): the fused
// super-particle (fuse_particles(): global rotations and shifts from the all-to-all
// registrations) as localizations (.fused.csv: x,y,sigma,particle in nm) and rendered
// (.fused.png, 1 nm pixels). Rotations are synchronized modulo the truth's symmetry when
// truth.json is there (then the summary gives the fused image's correlation with the template's
// rendering), else modulo 360 degrees.
Outputs write_outputs(const std::filesystem::path& dir, const std::filesystem::path& results);

// The sigma of the template rendering a fusion is compared with: sqrt(2) times the median
// localization sigma.
double template_sigma(std::span<const FusedLocalization> localizations);
// A rendering as an image (viridis, scaled to its 99.9th percentile).
Image8 render_image(const Rendering& rendering);

}  // namespace strata::apps::microscopy
