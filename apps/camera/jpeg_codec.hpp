#pragma once
// JPEG files through libjpeg-turbo: encoding photos (the generator) and decoding their luminance
// (the application's parse). libjpeg's errors — and its warnings, which is how it reports a
// truncated or damaged file — become exceptions naming the file instead of exit().

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace strata::apps::camera {

// What a JPEG's header says.
struct JpegHeader {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  int components = 0;  // 1: greyscale, 3: colour
};

// Encodes 8-bit interleaved pixels (`components` 1: grey, 3: RGB) as a baseline JPEG of
// `quality` 1-100 (colour is stored as YCbCr with 4:2:0 chroma subsampling, libjpeg's default).
std::vector<unsigned char> encode_jpeg(std::span<const std::uint8_t> pixels, std::uint32_t width,
                                       std::uint32_t height, int components, int quality);

// One JPEG held in memory, its header read on construction. Every failure throws
// allpairs::InputError whose message starts with `name` (the file).
class JpegReader {
 public:
  JpegReader(std::span<const std::byte> data, std::string name);
  ~JpegReader();
  JpegReader(const JpegReader&) = delete;
  JpegReader& operator=(const JpegReader&) = delete;

  const JpegHeader& header() const { return header_; }
  // Decodes the luminance (the Y of YCbCr, or the grey channel) as values 0-255, row-major;
  // `out` holds width * height values. Call once.
  void read_luminance(std::span<float> out);

 private:
  struct State;
  [[noreturn]] void fail() const;

  std::unique_ptr<State> state_;
  std::string name_;
  JpegHeader header_;
};

}  // namespace strata::apps::camera
