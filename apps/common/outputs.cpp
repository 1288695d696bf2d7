#include "common/outputs.hpp"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "strata/base/error.hpp"

namespace strata::apps {

std::filesystem::path output_path(const std::filesystem::path& results, std::string_view suffix) {
  std::filesystem::path path = results;
  path.replace_extension();
  path += std::string(suffix);
  return path;
}

void Image8::set(std::uint32_t x, std::uint32_t y, std::array<std::uint8_t, 3> rgb) {
  if (x >= width || y >= height) return;
  const std::size_t at = (std::size_t{y} * width + x) * channels;
  if (channels == 1) {
    pixels[at] = rgb[0];
    return;
  }
  for (std::uint32_t c = 0; c < 3; ++c)
    pixels[at + c] = rgb[c];
}

void write_png(const std::filesystem::path& file, const Image8& image) {
  if ((image.channels != 1 && image.channels != 3) || image.width == 0 || image.height == 0 ||
      image.pixels.size() != std::size_t{image.width} * image.height * image.channels)
    throw Error(fmt::format("{}: not an image to write ({}x{}, {} channels, {} bytes)",
                            file.string(), image.width, image.height, image.channels,
                            image.pixels.size()));
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = image.width;
  png.height = image.height;
  png.format = image.channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  if (png_image_write_to_file(&png, file.c_str(), 0, image.pixels.data(), 0, nullptr) == 0) {
    const std::string reason = png.message;
    png_image_free(&png);
    throw Error(fmt::format("{}: cannot write the PNG image: {}", file.string(), reason));
  }
}

Image8 read_png(const std::filesystem::path& file, std::uint32_t channels) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, file.c_str()) == 0)
    throw Error(fmt::format("{}: cannot read the PNG image: {}", file.string(), png.message));
  png.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  Image8 image(png.width, png.height, channels == 1 ? 1 : 3);
  if (png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr) == 0) {
    const std::string reason = png.message;
    png_image_free(&png);
    throw Error(fmt::format("{}: cannot read the PNG image: {}", file.string(), reason));
  }
  return image;
}

std::array<std::uint8_t, 3> viridis(double t) {
  // matplotlib's viridis at 0, 1/8, ..., 1.
  static constexpr std::array<std::array<double, 3>, 9> stops{{{68, 1, 84},
                                                               {71, 44, 122},
                                                               {59, 81, 139},
                                                               {44, 113, 142},
                                                               {33, 144, 141},
                                                               {39, 173, 129},
                                                               {92, 200, 99},
                                                               {170, 220, 50},
                                                               {253, 231, 37}}};
  if (!(t >= 0)) t = 0;  // also NaN
  t = std::min(t, 1.0) * 8;
  const auto low = std::min<std::size_t>(static_cast<std::size_t>(t), 7);
  const double f = t - static_cast<double>(low);
  std::array<std::uint8_t, 3> rgb{};
  for (std::size_t c = 0; c < 3; ++c)
    rgb[c] = static_cast<std::uint8_t>(
        std::lround(stops[low][c] + f * (stops[low + 1][c] - stops[low][c])));
  return rgb;
}

void write_text_file(const std::filesystem::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out.flush()) throw Error(fmt::format("{}: cannot write", file.string()));
}

}  // namespace strata::apps
