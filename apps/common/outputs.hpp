#pragma once
// What an application's run leaves for the scientist beside its results file: files named after
// the results file (results.bin -> results.groups.csv, ...), PNG images written through libpng,
// and a colour map for them.

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata::apps {

// One file written for the user, and what it holds ("groups of photos (CSV: photo,group)").
struct OutputFile {
  std::filesystem::path path;
  std::string what;
};

// The files an application wrote after a run, and a few lines about them (may be empty).
struct Outputs {
  std::vector<OutputFile> files;
  std::string summary;
};

// `results` with its extension replaced by `suffix`: output_path("d/results.bin", ".groups.csv")
// is "d/results.groups.csv".
std::filesystem::path output_path(const std::filesystem::path& results, std::string_view suffix);

// An 8-bit image, row-major from the top row; `channels` 1 (grey) or 3 (RGB).
struct Image8 {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint32_t channels = 3;
  std::vector<std::uint8_t> pixels;  // width * height * channels

  Image8() = default;
  Image8(std::uint32_t w, std::uint32_t h, std::uint32_t c)
      : width(w), height(h), channels(c), pixels(std::size_t{w} * h * c, 0) {}
  void set(std::uint32_t x, std::uint32_t y, std::array<std::uint8_t, 3> rgb);
};

// Writes `image` as a PNG file (libpng); an Error naming the file when it cannot.
void write_png(const std::filesystem::path& file, const Image8& image);
// Reads a PNG file as 8-bit grey (channels 1) or RGB (channels 3); an Error naming the file.
Image8 read_png(const std::filesystem::path& file, std::uint32_t channels);

// A perceptually ordered colour map (viridis, by its published control points) at t in [0, 1]
// (clamped): dark blue for 0, yellow for 1.
std::array<std::uint8_t, 3> viridis(double t);

// Writes `text` to `file`, an Error naming it when that fails.
void write_text_file(const std::filesystem::path& file, std::string_view text);

}  // namespace strata::apps
