#pragma once
// The camera identification application's entry points (what `strata allpairs camera
// generate|run` and the tests call): generate a data set of photos with known cameras, open a
// data directory as an all-pairs application, and evaluate a run's results against the truth.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "camera/camera_application.hpp"
#include "camera/clustering.hpp"
#include "common/outputs.hpp"
#include "strata/allpairs/application.hpp"

namespace strata::apps::camera {

// What to generate: `items` photos of a scene each, taken by `cameras` simulated cameras of one
// model (a sensor fingerprint each), as JPEG files plus truth.csv.
struct GenerateOptions {
  std::size_t items = 40;
  std::uint64_t seed = 1;
  std::size_t cameras = 4;
  std::uint32_t width = 256;
  std::uint32_t height = 192;
  int quality = 92;          // JPEG quality, 1-100
  bool color = true;         // RGB photos (the application reads their luminance) or greyscale
  float prnu_sigma = 0.02f;  // strength of the sensor fingerprints (standard deviation of K)
  // The model's 8x8-periodic offsets shared by every camera (grey levels, standard deviation;
  // 0: none): a non-unique artefact the Wiener filter must remove (it can on photos of about a
  // megapixel and more; on small photos part of it survives).
  float grid_sigma = 0.0f;
  unsigned threads = 0;  // generator threads; 0: one per core
};

// Writes the photos (photo_0000.jpg, ...) and truth.csv into `dir` (created if needed); the
// same options give the same files. Refuses a directory holding other JPEG files.
void generate(const std::filesystem::path& dir, const GenerateOptions& options);

// The application over the photos of `dir` (a CameraApplication).
// With `crop`, every photo's centre crop of that size is compared (photos of several sizes).
std::unique_ptr<strata::allpairs::ApplicationBase> open(const std::filesystem::path& dir,
                                                        std::optional<ImageShape> crop = {});

// The size in `text` ("WxH", e.g. 2048x1536); InputError naming --crop otherwise.
ImageShape parse_crop(const std::string& text);

// Whether the cameras were recovered — every photo grouped with exactly the photos of its own
// camera — and a few lines of numbers saying how clearly.
struct Evaluation {
  bool recovered = false;
  std::string summary;
};

// Evaluates a results file of a run over `dir` against `dir`'s truth.csv.
Evaluation evaluate(const std::filesystem::path& dir, const std::filesystem::path& results,
                    std::optional<ImageShape> crop = {});

// The same from the scores themselves (photos without any scored pair, e.g. skipped as
// unreadable, are left out and counted).
Evaluation evaluate_scores(const std::filesystem::path& dir, std::span<const ScoredPair> pairs,
                           std::optional<ImageShape> crop = {});

// The photos grouped without any truth: single linkage at match_threshold() over the scores.
struct Grouping {
  // Per photo its group, 0 .. groups - 1 in the order of each group's first photo; photos
  // without any scored pair (skipped as unreadable) get UINT32_MAX.
  std::vector<std::uint32_t> group;
  std::size_t groups = 0;
  MatchThreshold threshold;
};
Grouping group_photos(std::size_t photos, std::uint64_t pixels, std::span<const ScoredPair> pairs);

// Writes the answer of a run beside its results file (results.bin -> results.*): the groups of
// photos that share a camera (.groups.csv: photo,group, groups numbered from 1), every pair's
// scores (.scores.csv: photo_a,photo_b,ncc,pce) and the score matrix ordered by group
// (.scores.png). Needs no truth.
Outputs write_outputs(const std::filesystem::path& dir, const std::filesystem::path& results,
                      std::optional<ImageShape> crop = {});

}  // namespace strata::apps::camera
