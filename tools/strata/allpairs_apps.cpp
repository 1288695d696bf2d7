#include "allpairs_apps.hpp"

#include <optional>

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
// An application's outputs as the table returns them.
template <class Outputs>
std::pair<std::vector<AllPairsOutput>, std::string> converted(const Outputs& outputs) {
  std::vector<AllPairsOutput> files;
  for (const auto& file : outputs.files)
    files.push_back({file.path, file.what});
  return {std::move(files), outputs.summary};
}

template <class GenerateOptions, class Generate, class Open, class Evaluate, class WriteOutputs>
AllPairsApp entry(std::string name, std::string description, Generate generate, Open open,
                  Evaluate evaluate, std::string truth_file, WriteOutputs write_outputs) {
  return AllPairsApp{
      std::move(name),
      std::move(description),
      [generate](const std::filesystem::path& dir, std::size_t items, std::uint64_t seed) {
        GenerateOptions options;
        if (items != 0) options.items = items;  // 0: the application's default
        options.seed = seed;
        generate(dir, options);
      },
      open,
      [evaluate](const std::filesystem::path& dir, const std::filesystem::path& results,
                 const AllPairsAppOptions& options) {
        const auto evaluation = evaluate(dir, results, options);
        return std::pair{evaluation.recovered, evaluation.summary};
      },
      std::move(truth_file),
      [write_outputs](const std::filesystem::path& dir, const std::filesystem::path& results,
                      const AllPairsAppOptions& options) {
        return converted(write_outputs(dir, results, options));
      }};
}

// Refuses the options that belong to another application.
[[maybe_unused]] void only_camera_crops(const AllPairsAppOptions& options,
                                        const std::string& name) {
  if (!options.crop.empty())
    throw Error("--crop applies to the camera application only, not to " + name);
}

std::vector<AllPairsApp> make_table() {
  std::vector<AllPairsApp> table;
#ifdef STRATA_APP_CAMERA
  namespace camera = strata::apps::camera;
  // The crop, where one is given.
  const auto crop = [](const AllPairsAppOptions& options) -> std::optional<camera::ImageShape> {
    if (options.crop.empty()) return std::nullopt;
    return camera::parse_crop(options.crop);
  };
  table.push_back(entry<camera::GenerateOptions>(
      "camera", "common-source camera identification: PRNU patterns of JPEG photos, NCC and PCE",
      camera::generate,
      [crop](const std::filesystem::path& dir, const AllPairsAppOptions& options) {
        return camera::open(dir, crop(options));
      },
      [crop](const std::filesystem::path& dir, const std::filesystem::path& results,
             const AllPairsAppOptions& options) {
        return camera::evaluate(dir, results, crop(options));
      },
      "truth.csv",
      [crop](const std::filesystem::path& dir, const std::filesystem::path& results,
             const AllPairsAppOptions& options) {
        return camera::write_outputs(dir, results, crop(options));
      }));
#endif
#ifdef STRATA_APP_PHYLOGENY
  namespace phylogeny = strata::apps::phylogeny;
  table.push_back(entry<phylogeny::GenerateOptions>(
      "phylogeny", "tree of life: composition vectors of gzipped FASTA proteomes, correlation",
      phylogeny::generate,
      [](const std::filesystem::path& dir, const AllPairsAppOptions& options) {
        only_camera_crops(options, "phylogeny");
        return phylogeny::open(dir);
      },
      [](const std::filesystem::path& dir, const std::filesystem::path& results,
         const AllPairsAppOptions& options) {
        only_camera_crops(options, "phylogeny");
        return phylogeny::evaluate(dir, results);
      },
      "truth.nwk",
      [](const std::filesystem::path& dir, const std::filesystem::path& results,
         const AllPairsAppOptions& options) {
        only_camera_crops(options, "phylogeny");
        return phylogeny::write_outputs(dir, results, tree_drawing_script());
      }));
#endif
#ifdef STRATA_APP_MICROSCOPY
  namespace microscopy = strata::apps::microscopy;
  table.push_back(entry<microscopy::GenerateOptions>(
      "microscopy", "localization-microscopy particle fusion: GMM registration of particles",
      microscopy::generate,
      [](const std::filesystem::path& dir, const AllPairsAppOptions& options) {
        only_camera_crops(options, "microscopy");
        return microscopy::open(dir);
      },
      [](const std::filesystem::path& dir, const std::filesystem::path& results,
         const AllPairsAppOptions& options) {
        only_camera_crops(options, "microscopy");
        return microscopy::evaluate(dir, results);
      },
      "truth.json",
      [](const std::filesystem::path& dir, const std::filesystem::path& results,
         const AllPairsAppOptions& options) {
        only_camera_crops(options, "microscopy");
        return microscopy::write_outputs(dir, results);
      }));
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

std::filesystem::path tree_drawing_script() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  for (const std::filesystem::path& candidate :
       {self.parent_path() / "strata_draw_tree.py",
        self.parent_path().parent_path() / "share" / "strata" / "strata_draw_tree.py"})
    if (std::filesystem::is_regular_file(candidate, error)) return candidate;
  return {};
}

}  // namespace strata::cli
