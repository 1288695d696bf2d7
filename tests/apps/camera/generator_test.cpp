// The generator: deterministic from its seed, balanced cameras, a truth file naming every photo,
// the sensor model's formula, and refusals of bad options.
#include <gtest/gtest.h>

#include <map>

#include "camera/camera_app.hpp"
#include "camera/image_set.hpp"
#include "camera/jpeg_codec.hpp"
#include "camera/sensor.hpp"
#include "test_support.hpp"

namespace strata::apps::camera {
namespace {

using testing::read_bytes;
using testing::TempDir;

GenerateOptions small(std::uint64_t seed = 1) {
  GenerateOptions options;
  options.items = 7;
  options.cameras = 3;
  options.width = 48;
  options.height = 32;
  options.seed = seed;
  return options;
}

// Every file of a directory and its bytes.
std::map<std::string, std::vector<std::byte>> contents(const std::filesystem::path& dir) {
  std::map<std::string, std::vector<std::byte>> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    files[entry.path().filename().string()] = read_bytes(entry.path());
  return files;
}

TEST(CameraGenerator, TheSameOptionsGiveTheSameFilesOnAnyThreadCount) {
  TempDir first, second;
  GenerateOptions options = small();
  options.threads = 1;
  generate(first.path(), options);
  options.threads = 3;
  generate(second.path(), options);
  const auto files = contents(first.path());
  EXPECT_EQ(files.size(), 8u);  // 7 photos and truth.csv
  EXPECT_EQ(files, contents(second.path()));
}

TEST(CameraGenerator, AnotherSeedGivesOtherPhotos) {
  TempDir first, second;
  generate(first.path(), small(1));
  generate(second.path(), small(2));
  const auto a = contents(first.path()), b = contents(second.path());
  for (const auto& [name, bytes] : a)
    if (name != truth_file_name) {
      EXPECT_NE(bytes, b.at(name)) << name;
    }
}

TEST(CameraGenerator, TruthNamesEveryPhotoAndSpreadsThemEvenlyOverTheCameras) {
  TempDir dir;
  GenerateOptions options = small();
  options.items = 11;
  generate(dir.path(), options);
  const auto images = list_images(dir.path());
  const auto truth = read_truth(dir.path());
  ASSERT_EQ(images.size(), 11u);
  ASSERT_EQ(truth.size(), 11u);
  std::map<std::string, int> per_camera;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    EXPECT_EQ(truth[i].image, images[i].filename().string());
    ++per_camera[truth[i].camera];
  }
  ASSERT_EQ(per_camera.size(), 3u);
  for (const auto& [camera, count] : per_camera) {
    EXPECT_GE(count, 3) << camera;
    EXPECT_LE(count, 4) << camera;
  }
  // Real JPEGs of the requested size.
  const auto bytes = read_bytes(images.front());
  JpegReader reader(bytes, images.front().string());
  EXPECT_EQ(reader.header().width, 48u);
  EXPECT_EQ(reader.header().height, 32u);
  EXPECT_EQ(reader.header().components, 3);
}

TEST(CameraGenerator, GreyscalePhotosOnRequest) {
  TempDir dir;
  GenerateOptions options = small();
  options.color = false;
  generate(dir.path(), options);
  const auto image = list_images(dir.path()).front();
  const auto bytes = read_bytes(image);
  EXPECT_EQ(JpegReader(bytes, image.string()).header().components, 1);
}

TEST(CameraGenerator, RefusesBadOptionsAndDirectoriesHoldingOtherPhotos) {
  TempDir dir;
  GenerateOptions options = small();
  options.cameras = 8;  // more cameras than photos
  EXPECT_THROW(generate(dir.path(), options), Error);
  options = small();
  options.width = 4;
  EXPECT_THROW(generate(dir.path(), options), Error);
  options = small();
  options.quality = 0;
  EXPECT_THROW(generate(dir.path(), options), Error);

  generate(dir.path(), small());  // photo_0000 .. photo_0006
  options = small();
  options.items = 3;  // would leave photo_0003 .. 0006 in the set
  try {
    generate(dir.path(), options);
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(dir.path().string()), std::string::npos);
  }
  generate(dir.path(), small(5));  // the same names: regenerating in place is fine
}

TEST(SensorModel, APhotoIsTheSceneTimesOnePlusKPlusTheLinearPatternWithoutNoise) {
  RandomStream random(4, {});
  const RgbImage scene = render_scene(24, 16, random);
  const Sensor sensor = draw_sensor(24, 16, 0.05f, random);
  const LinearPattern pattern = draw_linear_pattern(24, 16, 2.0f, random);
  const SensorSettings noiseless{.prnu_sigma = 0.05f,
                                 .linear_pattern_sigma = 2.0f,
                                 .shot_noise_gain = 0.0f,
                                 .read_noise_sigma = 0.0f};
  const std::vector<std::uint8_t> photo = expose(scene, sensor, pattern, noiseless, random);
  for (std::uint32_t y = 0; y < 16; ++y)
    for (std::uint32_t x = 0; x < 24; ++x)
      for (std::size_t c = 0; c < 3; ++c) {
        const std::size_t pixel = std::size_t{y} * 24 + x;
        const double expected = scene.values[pixel * 3 + c] * (1.0 + sensor.prnu[pixel]) +
                                pattern.row_offsets[y] + pattern.column_offsets[x];
        ASSERT_NEAR(photo[pixel * 3 + c], std::clamp(expected, 0.0, 255.0), 0.51)
            << x << "," << y << " channel " << c;
      }
}

TEST(SensorModel, ScenesStayClearOfBlackAndSaturation) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    RandomStream random(seed, {});
    const RgbImage scene = render_scene(40, 30, random);
    for (const float v : scene.values) {
      ASSERT_GE(v, 12.0f);
      ASSERT_LE(v, 232.0f);
    }
  }
}

TEST(SensorModel, FingerprintsHaveTheRequestedStrength) {
  RandomStream random(8, {});
  const Sensor sensor = draw_sensor(200, 100, 0.02f, random);
  double sum = 0.0, squares = 0.0;
  for (const float k : sensor.prnu) {
    sum += k;
    squares += double{k} * k;
  }
  const double n = static_cast<double>(sensor.prnu.size());
  EXPECT_NEAR(sum / n, 0.0, 0.001);
  EXPECT_NEAR(std::sqrt(squares / n), 0.02, 0.001);
}

}  // namespace
}  // namespace strata::apps::camera
