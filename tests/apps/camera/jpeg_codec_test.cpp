// JPEG encoding and luminance decoding through libjpeg-turbo, and its failures as InputErrors
// naming the file (never exit()).
#include "camera/jpeg_codec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "strata/allpairs/application.hpp"

namespace strata::apps::camera {
namespace {

std::vector<std::uint8_t> grey_gradient(std::uint32_t width, std::uint32_t height) {
  std::vector<std::uint8_t> pixels(std::size_t{width} * height);
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x)
      pixels[y * width + x] = static_cast<std::uint8_t>(40 + (x * 3 + y * 2) % 160);
  return pixels;
}

std::vector<float> decode(std::span<const std::byte> data, const std::string& name) {
  JpegReader reader(data, name);
  std::vector<float> luminance(std::size_t{reader.header().width} * reader.header().height);
  reader.read_luminance(luminance);
  return luminance;
}

// The message of the InputError that decoding `data` throws, or "" when it decodes.
std::string decode_error(std::span<const std::byte> data, const std::string& name) {
  try {
    decode(data, name);
  } catch (const allpairs::InputError& error) {
    return error.what();
  }
  return "";
}

TEST(JpegCodec, GreyRoundTripKeepsTheHeaderAndTheValues) {
  constexpr std::uint32_t width = 40, height = 24;
  const auto pixels = grey_gradient(width, height);
  const auto jpeg = encode_jpeg(pixels, width, height, 1, 100);
  const auto bytes = std::as_bytes(std::span(jpeg));
  JpegReader reader(bytes, "gradient.jpg");
  EXPECT_EQ(reader.header().width, width);
  EXPECT_EQ(reader.header().height, height);
  EXPECT_EQ(reader.header().components, 1);
  std::vector<float> luminance(pixels.size());
  reader.read_luminance(luminance);
  for (std::size_t i = 0; i < pixels.size(); ++i)
    ASSERT_NEAR(luminance[i], pixels[i], 2.0) << i;
}

TEST(JpegCodec, ColourIsReadAsItsLuminance) {
  constexpr std::uint32_t width = 16, height = 16;
  std::vector<std::uint8_t> rgb;
  for (std::uint32_t i = 0; i < width * height; ++i)
    rgb.insert(rgb.end(), {200, 100, 50});
  const auto jpeg = encode_jpeg(rgb, width, height, 3, 95);
  const std::vector<float> luminance = decode(std::as_bytes(std::span(jpeg)), "orange.jpg");
  const double y = 0.299 * 200 + 0.587 * 100 + 0.114 * 50;  // JPEG's (JFIF) luminance
  for (const float v : luminance)
    ASSERT_NEAR(v, y, 1.5);
}

TEST(JpegCodec, ATruncatedFileIsAnInputErrorNamingIt) {
  const auto jpeg = encode_jpeg(grey_gradient(64, 64), 64, 64, 1, 90);
  const auto bytes = std::as_bytes(std::span(jpeg));
  for (const std::size_t kept : {jpeg.size() * 2 / 3, std::size_t{100}, std::size_t{3}}) {
    const std::string what = decode_error(bytes.first(kept), "cut.jpg");
    EXPECT_NE(what.find("cut.jpg"), std::string::npos) << kept << " bytes: " << what;
  }
}

TEST(JpegCodec, DamagedDataIsAnInputErrorNamingIt) {
  auto jpeg = encode_jpeg(grey_gradient(64, 64), 64, 64, 1, 90);
  // An end-of-image marker in the middle of the entropy-coded data.
  jpeg[jpeg.size() / 2] = 0xFF;
  jpeg[jpeg.size() / 2 + 1] = 0xD9;
  const std::string what = decode_error(std::as_bytes(std::span(jpeg)), "damaged.jpg");
  EXPECT_NE(what.find("damaged.jpg"), std::string::npos) << what;
}

TEST(JpegCodec, NotAJpegAtAllIsAnInputErrorNamingIt) {
  const std::string text = "P2\n2 2\n255\n0 0 0 0\n";
  const auto bytes = std::as_bytes(std::span(text));
  const std::string what = decode_error(bytes, "image.jpg");
  EXPECT_NE(what.find("image.jpg"), std::string::npos) << what;
  EXPECT_NE(what.find("JPEG"), std::string::npos) << what;
  EXPECT_NE(decode_error({}, "empty.jpg").find("empty.jpg"), std::string::npos);
}

TEST(JpegCodec, EncodingRefusesInconsistentInput) {
  const std::vector<std::uint8_t> pixels(10);
  EXPECT_THROW(encode_jpeg(pixels, 4, 4, 1, 90), Error);
  EXPECT_THROW(encode_jpeg(pixels, 2, 5, 2, 90), Error);
}

}  // namespace
}  // namespace strata::apps::camera
