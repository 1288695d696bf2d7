// The application over a data directory: its items, sizes and the errors for unusable input
// (each naming the directory or file), and the evaluation of scores against the truth.
#include <gtest/gtest.h>

#include <fstream>

#include "camera/camera_app.hpp"
#include "camera/image_set.hpp"
#include "camera/jpeg_codec.hpp"
#include "camera/prnu_kernels.hpp"
#include "test_support.hpp"

namespace strata::apps::camera {
namespace {

using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;

GenerateOptions tiny() {
  GenerateOptions options;
  options.items = 4;
  options.cameras = 2;
  options.width = 32;
  options.height = 24;
  return options;
}

// The message of the InputError `f` throws (a failure if it throws nothing or something else).
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const allpairs::InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

TEST(CameraApplication, ItemsAreThePhotosInNameOrder) {
  TempDir dir;
  generate(dir.path(), tiny());
  write_bytes(dir.path() / "notes.txt", std::as_bytes(std::span("not a photo", 11)));
  const auto application = open(dir.path());
  EXPECT_EQ(application->name(), "camera");
  ASSERT_EQ(application->item_count(), 4u);
  EXPECT_EQ(application->file_of(0), dir.path() / "photo_0000.jpg");
  EXPECT_EQ(application->file_of(3), dir.path() / "photo_0003.jpg");
  // The pattern, then at 4 KiB its half spectrum (24 x 17 complex floats).
  EXPECT_EQ(application->slot_bytes(), 4096u + 24u * 17u * 8u);
  EXPECT_EQ(application->item_bytes(1, 32u * 24u * 4u), application->slot_bytes());
  // The result part (NCC parts, peak, index, energy, count), then at 4 KiB the surface's
  // partials (one work-group's), at 8 KiB the cross spectrum and at 12 KiB the cross-correlation
  // surface.
  EXPECT_EQ(ComparisonLayout::of({32, 24}).parts, 1u) << "one work-group for 768 values";
  EXPECT_EQ(application->comparison_result_bytes(), (1u + 4u) * 4u);
  EXPECT_EQ(application->comparison_bytes(), 12288u + 32u * 24u * 4u);
  EXPECT_EQ(application->result_bytes(), sizeof(Result));
  const auto parsed = application->parse(2, read_bytes(application->file_of(2)));
  // The luminance, then room for the extraction's spectrum, power and column energies.
  EXPECT_EQ(parsed.size(), ExtractionScratch::of({32, 24}).bytes);
  EXPECT_GT(parsed.size(), 32u * 24u * 4u);
}

TEST(CameraApplication, AMissingOrEmptyDirectoryIsAnInputErrorNamingIt) {
  TempDir dir;
  const auto missing = dir.path() / "nothing-here";
  EXPECT_NE(input_error([&] { open(missing); }).find(missing.string()), std::string::npos);
  EXPECT_NE(input_error([&] { open(dir.path()); }).find(dir.path().string()), std::string::npos);
}

TEST(CameraApplication, UnusablePhotosAreInputErrorsNamingTheFile) {
  TempDir dir;
  generate(dir.path(), tiny());
  const auto application = open(dir.path());
  const auto file = application->file_of(1);
  const auto bytes = read_bytes(file);

  const std::vector<std::byte> truncated(bytes.begin(), bytes.begin() + bytes.size() / 2);
  std::string what = input_error([&] { application->parse(1, truncated); });
  EXPECT_NE(what.find(file.string()), std::string::npos) << what;

  const std::string garbage = "GIF89a, not a JPEG";
  what = input_error([&] { application->parse(1, std::as_bytes(std::span(garbage))); });
  EXPECT_NE(what.find(file.string()), std::string::npos) << what;

  // Another size than the set's (the first photo's).
  const std::vector<std::uint8_t> grey(16 * 16, 128);
  const auto other = encode_jpeg(grey, 16, 16, 1, 90);
  what = input_error([&] { application->parse(1, std::as_bytes(std::span(other))); });
  EXPECT_NE(what.find(file.string()), std::string::npos) << what;
  EXPECT_NE(what.find("16x16"), std::string::npos) << what;
  EXPECT_NE(what.find("32x24"), std::string::npos) << what;
}

TEST(CameraApplication, TheSetsSizeComesFromTheFirstReadablePhoto) {
  TempDir dir;
  generate(dir.path(), tiny());
  write_bytes(dir.path() / "photo_0000.jpg", std::as_bytes(std::span("broken", 6)));
  const auto application = open(dir.path());
  EXPECT_EQ(application->slot_bytes(), PatternLayout::of({32u, 24u}).bytes);
  // ... and a set with no readable photo at all is refused, naming the directory.
  for (std::size_t i = 1; i < 4; ++i)
    write_bytes(application->file_of(static_cast<allpairs::ItemIndex>(i)),
                std::as_bytes(std::span("broken", 6)));
  const std::string what = input_error([&] { open(dir.path()); });
  EXPECT_NE(what.find(dir.path().string()), std::string::npos) << what;
  EXPECT_NE(what.find("photo_0002.jpg"), std::string::npos) << what;
}

TEST(CameraApplication, AMalformedTruthFileIsAnInputErrorNamingFileAndLine) {
  TempDir dir;
  generate(dir.path(), tiny());
  std::ofstream(dir.path() / truth_file_name) << "image,camera\nphoto_0000.jpg,camera_00\n"
                                              << "photo_0001.jpg camera_01\n";
  const std::string what = input_error([&] { read_truth(dir.path()); });
  EXPECT_NE(what.find((dir.path() / truth_file_name).string() + ":3"), std::string::npos) << what;
}

TEST(CameraEvaluation, ScoresGroupingTheWrongPhotosAreNotARecovery) {
  TempDir dir;
  generate(dir.path(), tiny());
  const auto truth = read_truth(dir.path());
  // Scores that pair photos exactly by the truth, then ones that pair everything.
  std::vector<ScoredPair> right, merged;
  for (std::uint32_t a = 0; a < 4; ++a)
    for (std::uint32_t b = a + 1; b < 4; ++b) {
      const bool same = truth[a].camera == truth[b].camera;
      right.push_back({a, b, same ? 0.6f : -0.01f});
      merged.push_back({a, b, 0.6f});
    }
  const Evaluation good = evaluate_scores(dir.path(), right);
  EXPECT_TRUE(good.recovered) << good.summary;
  EXPECT_NE(good.summary.find("4 photos"), std::string::npos) << good.summary;
  const Evaluation bad = evaluate_scores(dir.path(), merged);
  EXPECT_FALSE(bad.recovered) << bad.summary;
  EXPECT_NE(bad.summary.find("NOT recovered"), std::string::npos) << bad.summary;
}

TEST(CameraEvaluation, PhotosWithoutResultsAreLeftOutAndCounted) {
  TempDir dir;
  generate(dir.path(), tiny());
  const auto truth = read_truth(dir.path());
  std::vector<ScoredPair> pairs;  // photo 3 skipped
  for (std::uint32_t a = 0; a < 3; ++a)
    for (std::uint32_t b = a + 1; b < 3; ++b)
      pairs.push_back({a, b, truth[a].camera == truth[b].camera ? 0.6f : 0.0f});
  const Evaluation evaluation = evaluate_scores(dir.path(), pairs);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("1 of the 4 photos have no results"), std::string::npos)
      << evaluation.summary;
  const std::vector<ScoredPair> foreign = {{0, 9, 0.5f}};
  EXPECT_THROW(evaluate_scores(dir.path(), foreign), Error);
}

}  // namespace
}  // namespace strata::apps::camera
