#include "allpairs_apps.hpp"

#include "strata/base/error.hpp"
#ifdef STRATA_APP_CAMERA
#include "camera/camera_app.hpp"
#endif
#ifdef STRATA_APP_PHYLOGENY
#include "phylogeny/phylogeny_app.hpp"
#endif
#ifdef STRATA_APP_MICROSCOPY
#include "microscopy/microscopy_app.hpp"
#endif

namespace strata::cli {

namespace {

// The table entry of an application namespace that has generate / open / evaluate.
template <class GenerateOptions, class Generate, class Open, class Evaluate>
AllPairsApp entry(std::string name, std::string description, Generate generate, Open open,
                  Evaluate evaluate) {
  return AllPairsApp{
      std::move(name), std::move(description),
      [generate](const std::filesystem::path& dir, std::size_t items, std::uint64_t seed) {
        GenerateOptions options;
        if (items != 0) options.items = items;  // 0: the application's default
        options.seed = seed;
        generate(dir, options);
      },
      open,
      [evaluate](const std::filesystem::path& dir, const std::filesystem::path& results) {
        const auto evaluation = evaluate(dir, results);
        return std::pair{evaluation.recovered, evaluation.summary};
      }};
}

std::vector<AllPairsApp> make_table() {
  std::vector<AllPairsApp> table;
#ifdef STRATA_APP_CAMERA
  namespace camera = strata::apps::camera;
  table.push_back(entry<camera::GenerateOptions>(
      "camera", "common-source camera identification: PRNU patterns of JPEG photos, NCC",
      camera::generate, [](const std::filesystem::path& dir) { return camera::open(dir); },
      camera::evaluate));
#endif
#ifdef STRATA_APP_PHYLOGENY
  namespace phylogeny = strata::apps::phylogeny;
  table.push_back(entry<phylogeny::GenerateOptions>(
      "phylogeny", "tree of life: composition vectors of gzipped FASTA proteomes, correlation",
      phylogeny::generate, [](const std::filesystem::path& dir) { return phylogeny::open(dir); },
      phylogeny::evaluate));
#endif
#ifdef STRATA_APP_MICROSCOPY
  namespace microscopy = strata::apps::microscopy;
  table.push_back(entry<microscopy::GenerateOptions>(
      "microscopy", "localization-microscopy particle fusion: GMM registration of particles",
      microscopy::generate, [](const std::filesystem::path& dir) { return microscopy::open(dir); },
      microscopy::evaluate));
#endif
  return table;
}

}  // namespace

const std::vector<AllPairsApp>& allpairs_apps() {
  static const std::vector<AllPairsApp> table = make_table();
  return table;
}

const AllPairsApp& find_allpairs_app(const std::string& name) {
  std::string known;
  for (const AllPairsApp& app : allpairs_apps()) {
    if (app.name == name) return app;
    known += (known.empty() ? "" : ", ") + app.name;
  }
  throw Error("no all-pairs application '" + name +
              "' (this build has: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace strata::cli
