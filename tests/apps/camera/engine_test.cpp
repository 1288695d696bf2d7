// The camera application under the all-pairs engine (one process): the results file it writes
// recovers the cameras, equals the sequential computation, and a truncated photo is skipped when
// asked and left out of the evaluation.
#include "strata/allpairs/engine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>

#include "camera/camera_app.hpp"
#include "camera/image_set.hpp"
#include "camera/jpeg_codec.hpp"
#include "engine_test_support.hpp"
#include "strata/allpairs/results_file.hpp"
#include "test_support.hpp"

namespace strata::apps::camera {

namespace {

using testing::TempDir;

GenerateOptions photos() {
  GenerateOptions options;
  options.items = 12;
  options.cameras = 3;
  options.width = 128;
  options.height = 96;
  options.seed = 3;
  return options;
}

// Fewer device slots than the photos: items are evicted and reloaded.
allpairs::EngineOptions engine_options(const std::filesystem::path& output,
                                       const std::string& devices) {
  return engine_testing::engine_options(output, devices, 6);
}

class CameraEngine : public ::testing::TestWithParam<std::string> {};

TEST_P(CameraEngine, TheResultsFileRecoversTheCamerasAndEqualsTheDirectComputation) {
  CAMERA_REQUIRE_DEVICE(device);
  TempDir dir;
  generate(dir.path() / "photos", photos());
  const auto application = open(dir.path() / "photos");
  const auto output = dir.path() / "results.bin";
  const allpairs::EngineReport report = allpairs::run_all_pairs(
      *application, engine_options(output, GetParam()), engine_testing::network());
  EXPECT_EQ(report.pairs_computed, 66u);

  const Evaluation evaluation = evaluate(dir.path() / "photos", output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;

  const auto results = allpairs::read_results<Result>(output);
  const auto direct = allpairs::run_sequentially(*application, device);
  ASSERT_EQ(results.size(), direct.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_EQ(results[i].left, direct[i].left);
    ASSERT_EQ(results[i].right, direct[i].right);
    Result expected;
    std::memcpy(&expected, direct[i].result.data(), sizeof expected);
    EXPECT_NEAR(results[i].value.ncc, expected.ncc, 1e-6)
        << results[i].left << "," << results[i].right;
    EXPECT_NEAR(results[i].value.pce, expected.pce, 1e-4 * std::abs(expected.pce))
        << results[i].left << "," << results[i].right;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CameraEngine, ::testing::Values("cpu", "opencl", "cuda"),
                         [](const auto& backend) { return backend.param; });

// (Stopping at a bad file is the engine's own test; the photo's InputError is application_test's.)
TEST(CameraEngineInput, ATruncatedPhotoIsSkippedWhenAskedAndLeftOutOfTheEvaluation) {
  TempDir dir;
  const auto photos_dir = dir.path() / "photos";
  generate(photos_dir, photos());
  const auto application = open(photos_dir);
  const auto victim = application->file_of(5);
  const auto bytes = testing::read_bytes(victim);
  testing::write_bytes(victim, std::span(bytes).first(bytes.size() / 2));

  allpairs::EngineOptions options = engine_options(dir.path() / "skipped.bin", "cpu");
  options.bad_input = allpairs::BadInput::skip;
  const allpairs::EngineReport report =
      allpairs::run_all_pairs(*application, options, engine_testing::network());
  EXPECT_EQ(report.items_skipped, 1u);
  EXPECT_EQ(report.pairs_computed, 55u);  // C(11, 2)
  const Evaluation evaluation = evaluate(photos_dir, options.output);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  EXPECT_NE(evaluation.summary.find("1 of the 12 photos have no results"), std::string::npos)
      << evaluation.summary;
}

// The answer written beside the results file, without looking at the truth: the groups are the
// cameras, the scores are the results', the matrix image has a cell per photo.
// Photos of several sizes: refused, naming a photo and --crop; with --crop, every photo's centre
// crop is compared, and the cameras come back. Half the photos are re-encoded with a 16-pixel
// border (greyscale), so their centre crops are the others' whole photos.
TEST(CameraEngineInput, PhotosOfSeveralSizesAreComparedByTheirCentreCrops) {
  TempDir dir;
  const auto photos_dir = dir.path() / "photos";
  const GenerateOptions generated = photos();
  generate(photos_dir, generated);
  const std::uint32_t border = 16;
  const std::uint32_t width = generated.width + 2 * border;
  const std::uint32_t height = generated.height + 2 * border;
  const std::vector<std::filesystem::path> files = list_images(photos_dir);
  for (std::size_t i = 0; i < files.size(); i += 2) {
    const std::vector<std::byte> bytes = testing::read_bytes(files[i]);
    JpegReader reader(bytes, files[i].string());
    std::vector<float> luminance(std::size_t{generated.width} * generated.height);
    reader.read_luminance(luminance);
    std::vector<std::uint8_t> padded(std::size_t{width} * height, 128);
    for (std::uint32_t y = 0; y < generated.height; ++y)
      for (std::uint32_t x = 0; x < generated.width; ++x)
        padded[std::size_t{y + border} * width + x + border] =
            static_cast<std::uint8_t>(std::lround(luminance[std::size_t{y} * generated.width + x]));
    testing::write_bytes(files[i],
                         std::span<const unsigned char>(encode_jpeg(padded, width, height, 1, 98)));
  }
  const auto output = dir.path() / "results.bin";
  // Uncropped, the first photo sets the size and a photo of the other size stops the run.
  try {
    allpairs::run_all_pairs(*open(photos_dir), engine_options(output, "cpu"),
                            engine_testing::network());
    FAIL() << "expected the run to stop";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    // One of the odd-numbered photos (whichever is parsed first) names itself.
    EXPECT_NE(what.find(".jpg: 128x96 pixels, but the photos of this set are 160x128"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("--crop WxH"), std::string::npos) << what;
  }
  std::filesystem::remove(output.string() + ".journal");  // the stopped run's
  const ImageShape crop{generated.width, generated.height};
  allpairs::run_all_pairs(*open(photos_dir, crop), engine_options(output, "cpu"),
                          engine_testing::network());
  const Evaluation evaluation = evaluate(photos_dir, output, crop);
  EXPECT_TRUE(evaluation.recovered) << evaluation.summary;
  // A crop larger than a photo names it.
  EXPECT_THROW(open(photos_dir, ImageShape{width + 2, height}), allpairs::InputError);
}

TEST(CameraCrop, TheSizeIsWidthByHeightOrAnErrorNamingTheOption) {
  const ImageShape shape = parse_crop("2048x1536");
  EXPECT_EQ(shape.width, 2048u);
  EXPECT_EQ(shape.height, 1536u);
  for (const char* bad :
       {"", "2048", "2048x", "x1536", "2048x1536x3", "4x4", "-5x10", "20 by 10"}) {
    try {
      parse_crop(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const allpairs::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--crop"), std::string::npos) << e.what();
    }
  }
}

TEST(CameraEngineOutputs, TheGroupsAreTheCamerasAndTheScoresTheResults) {
  TempDir dir;
  const auto photos_dir = dir.path() / "photos";
  generate(photos_dir, photos());
  std::map<std::string, std::string> camera_of;
  for (const TruthEntry& entry : read_truth(photos_dir))
    camera_of[entry.image] = entry.camera;
  std::filesystem::remove(photos_dir / "truth.csv");  // not needed for the answer
  const auto application = open(photos_dir);
  const auto output = dir.path() / "run.bin";
  allpairs::run_all_pairs(*application, engine_options(output, "cpu"), engine_testing::network());

  const Outputs outputs = write_outputs(photos_dir, output);
  ASSERT_EQ(outputs.files.size(), 3u);
  EXPECT_EQ(outputs.files[0].path, dir.path() / "run.groups.csv");
  EXPECT_EQ(outputs.files[1].path, dir.path() / "run.scores.csv");
  EXPECT_EQ(outputs.files[2].path, dir.path() / "run.scores.png");
  EXPECT_NE(outputs.summary.find("12 photos in 3 groups"), std::string::npos) << outputs.summary;

  // Groups: two photos share a group exactly when they share a camera.
  std::ifstream groups(outputs.files[0].path);
  std::string line;
  ASSERT_TRUE(std::getline(groups, line));
  EXPECT_EQ(line, "photo,group");
  std::vector<std::pair<std::string, std::string>> rows;  // photo, group
  while (std::getline(groups, line)) {
    const auto comma = line.find(',');
    ASSERT_NE(comma, std::string::npos) << line;
    rows.emplace_back(line.substr(0, comma), line.substr(comma + 1));
  }
  ASSERT_EQ(rows.size(), 12u);
  for (const auto& [a, group_a] : rows)
    for (const auto& [b, group_b] : rows)
      EXPECT_EQ(group_a == group_b, camera_of.at(a) == camera_of.at(b)) << a << " " << b;

  // Scores: one line per pair, the results file's NCC and PCE.
  const auto results = allpairs::read_results<Result>(output);
  std::ifstream scores(outputs.files[1].path);
  ASSERT_TRUE(std::getline(scores, line));
  EXPECT_EQ(line, "photo_a,photo_b,ncc,pce");
  std::size_t count = 0;
  while (std::getline(scores, line)) {
    ASSERT_LT(count, results.size());
    const auto& result = results[count++];
    const std::string prefix = application->file_of(result.left).filename().string() + "," +
                               application->file_of(result.right).filename().string() + ",";
    ASSERT_EQ(line.substr(0, prefix.size()), prefix);
    const std::string values = line.substr(prefix.size());
    const auto comma = values.find(',');
    ASSERT_NE(comma, std::string::npos) << line;
    EXPECT_NEAR(std::stod(values.substr(0, comma)), result.value.ncc, 1e-6);
    EXPECT_NEAR(std::stod(values.substr(comma + 1)), result.value.pce,
                1e-5 * std::abs(result.value.pce));
  }
  EXPECT_EQ(count, 66u);

  const Image8 image = read_png(outputs.files[2].path, 3);
  EXPECT_EQ(image.width, image.height);
  EXPECT_EQ(image.width % 12, 0u);
  EXPECT_GT(image.width, 0u);
}

}  // namespace
}  // namespace strata::apps::camera
