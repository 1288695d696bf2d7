// write_outputs(): the answer of a run for the analyst — which photos share a camera, every
// pair's scores (NCC and PCE), and a picture of the score matrix ordered by group.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "camera/camera_app.hpp"
#include "strata/allpairs/results_file.hpp"

namespace strata::apps::camera {
namespace {

// Pixels per cell of the score matrix: the image is about 768 pixels wide, cells 1..16 pixels.
std::uint32_t cell_pixels(std::size_t photos) {
  return static_cast<std::uint32_t>(
      std::clamp<std::size_t>(768 / std::max<std::size_t>(photos, 1), 1, 16));
}

}  // namespace

Grouping group_photos(std::size_t photos, std::uint64_t pixels, std::span<const ScoredPair> pairs) {
  Grouping grouping;
  constexpr auto absent = std::numeric_limits<std::uint32_t>::max();
  grouping.group.assign(photos, absent);
  std::vector<bool> present(photos, false);
  std::vector<float> scores;
  for (const ScoredPair& pair : pairs) {
    if (pair.left >= photos || pair.right >= photos || pair.left == pair.right)
      throw Error(fmt::format("camera: a result for the pair ({}, {}) of a set of {} photos",
                              pair.left, pair.right, photos));
    present[pair.left] = present[pair.right] = true;
    scores.push_back(pair.ncc);
  }
  grouping.threshold = match_threshold(pixels, scores);
  const std::vector<std::uint32_t> labels =
      cluster_by_threshold(photos, pairs, grouping.threshold.ncc);
  // Groups numbered 0, 1, ... in the order of their first photo with results.
  std::vector<std::uint32_t> renumbered(photos, absent);
  for (std::size_t i = 0; i < photos; ++i) {
    if (!present[i]) continue;
    if (renumbered[labels[i]] == absent)
      renumbered[labels[i]] = static_cast<std::uint32_t>(grouping.groups++);
    grouping.group[i] = renumbered[labels[i]];
  }
  return grouping;
}

Outputs write_outputs(const std::filesystem::path& dir, const std::filesystem::path& results,
                      std::optional<ImageShape> crop) {
  const CameraApplication application(dir, crop);
  const std::size_t n = application.item_count();
  const auto records = allpairs::read_results<Result>(results);
  std::vector<ScoredPair> pairs;
  pairs.reserve(records.size());
  for (const auto& record : records)
    pairs.push_back({record.left, record.right, record.value.ncc});
  const Grouping grouping = group_photos(n, application.shape().pixels(), pairs);
  const auto name = [&](std::size_t i) {
    return application.file_of(static_cast<allpairs::ItemIndex>(i)).filename().string();
  };
  constexpr auto absent = std::numeric_limits<std::uint32_t>::max();

  Outputs outputs;
  // Groups, numbered from 1.
  std::string text = "photo,group\n";
  std::size_t grouped = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (grouping.group[i] == absent) continue;
    text += fmt::format("{},{}\n", name(i), grouping.group[i] + 1);
    ++grouped;
  }
  const auto groups_file = output_path(results, ".groups.csv");
  write_text_file(groups_file, text);
  outputs.files.push_back({groups_file, "photos grouped by camera (CSV: photo,group)"});

  text = "photo_a,photo_b,ncc,pce\n";
  for (const auto& record : records)
    text += fmt::format("{},{},{:.6f},{:.6g}\n", name(record.left), name(record.right),
                        record.value.ncc, record.value.pce);
  const auto scores_file = output_path(results, ".scores.csv");
  write_text_file(scores_file, text);
  outputs.files.push_back(
      {scores_file, "the NCC and PCE of every pair (CSV: photo_a,photo_b,ncc,pce)"});

  // The score matrix, photos ordered by group (then by name), the colour scale from NCC 0 to
  // the highest score of two different photos; white lines between groups.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i)
    if (grouping.group[i] != absent) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return grouping.group[a] < grouping.group[b];
  });
  if (!order.empty()) {
    std::vector<std::size_t> row(n, 0);
    for (std::size_t r = 0; r < order.size(); ++r)
      row[order[r]] = r;
    const std::size_t m = order.size();
    std::vector<float> matrix(m * m, std::numeric_limits<float>::quiet_NaN());
    float top = 0;
    for (const ScoredPair& pair : pairs) {
      const std::size_t a = row[pair.left], b = row[pair.right];
      matrix[a * m + b] = matrix[b * m + a] = pair.ncc;
      top = std::max(top, pair.ncc);
    }
    for (std::size_t r = 0; r < m; ++r)
      matrix[r * m + r] = std::max(top, 1e-6f);
    const std::uint32_t cell = cell_pixels(m);
    const auto side = static_cast<std::uint32_t>(m) * cell;
    Image8 image(side, side, 3);
    for (std::uint32_t y = 0; y < side; ++y)
      for (std::uint32_t x = 0; x < side; ++x) {
        const float value = matrix[(y / cell) * m + x / cell];
        image.set(x, y,
                  std::isnan(value) ? std::array<std::uint8_t, 3>{128, 128, 128}
                                    : viridis(top > 0 ? value / top : 0.0));
      }
    if (cell >= 3) {
      for (std::size_t r = 1; r < m; ++r) {
        if (grouping.group[order[r]] == grouping.group[order[r - 1]]) continue;
        const auto line = static_cast<std::uint32_t>(r) * cell;
        for (std::uint32_t t = 0; t < side; ++t) {
          image.set(line, t, {255, 255, 255});
          image.set(t, line, {255, 255, 255});
        }
      }
    }
    const auto png_file = output_path(results, ".scores.png");
    write_png(png_file, image);
    outputs.files.push_back(
        {png_file, fmt::format("the score matrix ordered by group ({}x{} pixels; NCC 0 dark "
                               "blue .. {:.4f} yellow; white lines between groups)",
                               side, side, top)});
  }
  outputs.summary = fmt::format(
      "camera: {} photos in {} groups (a photo joins a group when its NCC with one of its photos "
      "exceeds {:.4f}: {:.2f} sigma of unrelated patterns above their centre {:.4f}, sigma "
      "{:.5f}, for a false match in fewer than 1 in {:.0f} runs of {} pairs)",
      grouped, grouping.groups, grouping.threshold.ncc, grouping.threshold.sigmas,
      grouping.threshold.centre, grouping.threshold.null_sigma, 1.0 / false_match_probability,
      grouping.threshold.pairs);
  if (grouped < n)
    outputs.summary += fmt::format("; {} photos without results (skipped)", n - grouped);
  return outputs;
}

}  // namespace strata::apps::camera
