// open() and evaluate_scores(): the application over a directory, and its results against the
// truth.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "camera/camera_app.hpp"
#include "camera/image_set.hpp"

namespace strata::apps::camera {
namespace {

// Minimum, median and maximum of a list of scores.
struct Spread {
  std::size_t count = 0;
  float low = 0.0f, median = 0.0f, high = 0.0f;
  explicit Spread(std::vector<float> values) : count(values.size()) {
    if (values.empty()) return;
    std::sort(values.begin(), values.end());
    low = values.front();
    median = values[values.size() / 2];
    high = values.back();
  }
};

// The true camera of each photo, by the photos' order in the directory.
std::vector<std::string> true_cameras(const std::filesystem::path& dir,
                                      const std::vector<std::filesystem::path>& images) {
  std::map<std::string, std::string> camera_of;
  for (TruthEntry& entry : read_truth(dir))
    camera_of[entry.image] = std::move(entry.camera);
  std::vector<std::string> cameras;
  for (const std::filesystem::path& image : images) {
    const auto it = camera_of.find(image.filename().string());
    if (it == camera_of.end())
      throw allpairs::InputError(fmt::format("{}: no line for {}", (dir / truth_file_name).string(),
                                             image.filename().string()));
    cameras.push_back(it->second);
  }
  return cameras;
}

}  // namespace

std::unique_ptr<allpairs::ApplicationBase> open(const std::filesystem::path& dir,
                                                std::optional<ImageShape> crop) {
  return std::make_unique<CameraApplication>(dir, crop);
}

Evaluation evaluate_scores(const std::filesystem::path& dir, std::span<const ScoredPair> pairs,
                           std::optional<ImageShape> crop) {
  const CameraApplication application(dir, crop);
  std::vector<std::filesystem::path> images(application.item_count());
  for (std::size_t i = 0; i < images.size(); ++i)
    images[i] = application.file_of(static_cast<allpairs::ItemIndex>(i));
  const std::vector<std::string> camera_names = true_cameras(dir, images);

  // The photos that have results, renumbered 0 .. n-1.
  constexpr auto absent = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> position(images.size(), absent);
  for (const ScoredPair& pair : pairs) {
    if (pair.left >= images.size() || pair.right >= images.size() || pair.left == pair.right)
      throw Error(
          fmt::format("camera evaluation: a result for the pair ({}, {}) of a set of {} "
                      "photos in {}",
                      pair.left, pair.right, images.size(), dir.string()));
    position[pair.left] = position[pair.right] = 0;
  }
  std::vector<std::uint32_t> truth;
  std::map<std::string, std::uint32_t> camera_label;
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (position[i] == absent) continue;
    position[i] = static_cast<std::uint32_t>(truth.size());
    truth.push_back(
        camera_label.try_emplace(camera_names[i], static_cast<std::uint32_t>(camera_label.size()))
            .first->second);
  }
  const std::size_t evaluated = truth.size();

  std::vector<ScoredPair> renumbered;
  std::vector<float> same, different;
  for (const ScoredPair& pair : pairs) {
    renumbered.push_back({position[pair.left], position[pair.right], pair.ncc});
    (camera_names[pair.left] == camera_names[pair.right] ? same : different).push_back(pair.ncc);
  }
  std::vector<float> scores;
  for (const ScoredPair& pair : pairs)
    scores.push_back(pair.ncc);
  const MatchThreshold threshold = match_threshold(application.shape().pixels(), scores);
  const std::vector<std::uint32_t> found =
      cluster_by_threshold(evaluated, renumbered, threshold.ncc);
  const PartitionAgreement agreement = compare_partitions(found, truth);

  const Spread same_spread(same), different_spread(different);
  const double sigma = threshold.null_sigma;
  Evaluation evaluation;
  evaluation.recovered = evaluated > 0 && agreement.identical;
  std::string& s = evaluation.summary;
  s += fmt::format("{} photos of {}x{} pixels from {} cameras, {} pairs compared", evaluated,
                   application.shape().width, application.shape().height, agreement.true_groups,
                   pairs.size());
  if (evaluated < images.size())
    s += fmt::format(" ({} of the {} photos have no results: skipped)", images.size() - evaluated,
                     images.size());
  if (pairs.size() != evaluated * (evaluated - 1) / 2)
    s += fmt::format(" (of {} pairs)", evaluated * (evaluated - 1) / 2);
  s += "\n";
  if (same_spread.count > 0)
    s += fmt::format(
        "  same camera:      NCC {:.4f} .. {:.4f}, median {:.4f} ({:.1f} .. {:.1f} "
        "sigma)\n",
        same_spread.low, same_spread.high, same_spread.median, same_spread.low / sigma,
        same_spread.high / sigma);
  if (different_spread.count > 0)
    s += fmt::format(
        "  other cameras:    NCC {:.4f} .. {:.4f}, median {:.4f} ({:.1f} .. {:.1f} "
        "sigma)\n",
        different_spread.low, different_spread.high, different_spread.median,
        different_spread.low / sigma, different_spread.high / sigma);
  s += fmt::format(
      "  threshold NCC {:.4f}: {:.2f} sigma of unrelated patterns above their centre {:.4f} (a "
      "false match in fewer than 1 in {:.0f} runs of {} pairs; sigma {:.5f} from {} scores below "
      "the centre; {:.5f} if white)\n",
      threshold.ncc, threshold.sigmas, threshold.centre, 1.0 / false_match_probability,
      threshold.pairs, threshold.null_sigma, threshold.below_centre, threshold.white_sigma);
  s += fmt::format(
      "  {} groups found; pairwise precision {:.3f}, recall {:.3f}, adjusted Rand index {:.3f}\n",
      agreement.found_groups, agreement.pair_precision, agreement.pair_recall,
      agreement.adjusted_rand);
  s += evaluation.recovered
           ? "  cameras recovered: every photo grouped with exactly the photos of its camera"
           : "  cameras NOT recovered: the groups differ from the cameras";
  return evaluation;
}

}  // namespace strata::apps::camera
