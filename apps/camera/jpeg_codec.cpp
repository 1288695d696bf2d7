#include "camera/jpeg_codec.hpp"

// clang-format off
#include <cstdio>  // jpeglib.h needs FILE and size_t first
#include <jpeglib.h>
// clang-format on

#include <fmt/format.h>

#include <csetjmp>
#include <cstdlib>
#include <cstring>

#include "strata/allpairs/application.hpp"
#include "strata/base/error.hpp"

namespace strata::apps::camera {
namespace jpeg_detail {

// libjpeg's error manager extended with where to jump back to and the message to report.
// libjpeg calls error_exit (errors) and emit_message (warnings, traces) through the base; a
// longjmp back into the function that called libjpeg replaces its default exit(). Not in the
// anonymous namespace: JpegReader::State, a member of a class with linkage, holds one.
struct ErrorJump {
  jpeg_error_mgr base;  // first: libjpeg hands back a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

}  // namespace jpeg_detail
namespace {

using jpeg_detail::ErrorJump;

ErrorJump& error_jump_of(j_common_ptr info) {
  return *reinterpret_cast<ErrorJump*>(info->err);  // `base` is the first member
}

[[noreturn]] void jump_on_error(j_common_ptr info) {
  ErrorJump& errors = error_jump_of(info);
  (*info->err->format_message)(info, errors.message);
  std::longjmp(errors.jump, 1);
}

// A warning (msg_level -1) means damaged data, e.g. "Premature end of JPEG file": an error too.
void jump_on_warning(j_common_ptr info, int msg_level) {
  if (msg_level < 0) jump_on_error(info);
}

void install(ErrorJump& errors, jpeg_error_mgr*& slot) {
  slot = jpeg_std_error(&errors.base);
  errors.base.error_exit = jump_on_error;
  errors.base.emit_message = jump_on_warning;
  errors.message[0] = '\0';
}

// The compressor and its output buffer (allocated by libjpeg, freed here).
struct Encoder {
  ErrorJump errors;
  jpeg_compress_struct info;
  unsigned char* output = nullptr;
  unsigned long output_bytes = 0;  // NOLINT(runtime/int): libjpeg's type
  Encoder() {
    std::memset(&info, 0, sizeof info);
    install(errors, info.err);
  }
  ~Encoder() {
    jpeg_destroy_compress(&info);
    std::free(output);
  }
};

// Fills the encoder; returns false (with the message in `errors`) where libjpeg failed.
bool compress(Encoder& encoder, const std::uint8_t* pixels, std::uint32_t width,
              std::uint32_t height, int components, int quality) {
  jpeg_compress_struct& info = encoder.info;
  if (setjmp(encoder.errors.jump) != 0) return false;
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, &encoder.output, &encoder.output_bytes);
  info.image_width = width;
  info.image_height = height;
  info.input_components = components;
  info.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  const std::size_t stride = std::size_t{width} * static_cast<std::size_t>(components);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(pixels + info.next_scanline * stride);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  return true;
}

}  // namespace

std::vector<unsigned char> encode_jpeg(std::span<const std::uint8_t> pixels, std::uint32_t width,
                                       std::uint32_t height, int components, int quality) {
  if (components != 1 && components != 3)
    throw Error(fmt::format("JPEG encoding: {} components (1 or 3 supported)", components));
  if (pixels.size() != std::size_t{width} * height * static_cast<std::size_t>(components))
    throw Error(fmt::format("JPEG encoding: {} bytes for a {}x{}x{} image", pixels.size(), width,
                            height, components));
  Encoder encoder;
  if (!compress(encoder, pixels.data(), width, height, components, quality))
    throw Error(std::string("JPEG encoding failed: ") + encoder.errors.message);
  return {encoder.output, encoder.output + encoder.output_bytes};
}

// The decompressor; destroyed (with what libjpeg allocated) with the reader.
struct JpegReader::State {
  ErrorJump errors;
  jpeg_decompress_struct info;
  State() {
    std::memset(&info, 0, sizeof info);
    install(errors, info.err);
  }
  ~State() { jpeg_destroy_decompress(&info); }
};

namespace {

bool read_header(jpeg_decompress_struct& info, ErrorJump& errors, const std::byte* data,
                 std::size_t bytes) {
  if (setjmp(errors.jump) != 0) return false;
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, reinterpret_cast<const unsigned char*>(data),
               static_cast<unsigned long>(bytes));  // NOLINT(runtime/int)
  jpeg_read_header(&info, TRUE);
  return true;
}

bool decode_luminance(jpeg_decompress_struct& info, ErrorJump& errors, float* out) {
  if (setjmp(errors.jump) != 0) return false;
  info.out_color_space = JCS_GRAYSCALE;  // libjpeg keeps Y and skips the chroma
  info.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&info);
  const JDIMENSION width = info.output_width;
  const auto batch = static_cast<JDIMENSION>(info.rec_outbuf_height);
  JSAMPARRAY rows =
      (*info.mem->alloc_sarray)(reinterpret_cast<j_common_ptr>(&info), JPOOL_IMAGE, width, batch);
  while (info.output_scanline < info.output_height) {
    const JDIMENSION first = info.output_scanline;
    const JDIMENSION read = jpeg_read_scanlines(&info, rows, batch);
    for (JDIMENSION r = 0; r < read; ++r) {
      float* line = out + std::size_t{first + r} * width;
      for (JDIMENSION x = 0; x < width; ++x)
        line[x] = static_cast<float>(rows[r][x]);
    }
  }
  jpeg_finish_decompress(&info);
  return true;
}

}  // namespace

JpegReader::JpegReader(std::span<const std::byte> data, std::string name)
    : state_(std::make_unique<State>()), name_(std::move(name)) {
  if (data.empty()) throw allpairs::InputError(name_ + ": empty file, not a JPEG image");
  if (!read_header(state_->info, state_->errors, data.data(), data.size())) fail();
  header_ = {state_->info.image_width, state_->info.image_height, state_->info.num_components};
}

JpegReader::~JpegReader() = default;

void JpegReader::read_luminance(std::span<float> out) {
  if (out.size() != std::size_t{header_.width} * header_.height)
    throw Error(fmt::format("{}: {} values for a {}x{} image", name_, out.size(), header_.width,
                            header_.height));
  if (!decode_luminance(state_->info, state_->errors, out.data())) fail();
}

void JpegReader::fail() const {
  throw allpairs::InputError(
      fmt::format("{}: not a readable JPEG image ({})", name_, state_->errors.message));
}

}  // namespace strata::apps::camera
