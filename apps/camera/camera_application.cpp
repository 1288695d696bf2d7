#include "camera/camera_application.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "camera/image_set.hpp"
#include "camera/jpeg_codec.hpp"
#include "camera/prnu_kernels.hpp"

namespace strata::apps::camera {
namespace {

// Smallest image side: the 3x3 filter needs neighbours, the extraction's scratch width + 1 values.
constexpr std::uint32_t smallest_side = 8;
// Largest image: the kernels index pixels with 32-bit unsigned integers.
constexpr std::uint64_t largest_image = std::uint64_t{1} << 31;

// The first `bytes` bytes of a file (all of it if shorter).
std::vector<std::byte> read_head(const std::filesystem::path& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw allpairs::InputError(path.string() + ": cannot open it");
  std::vector<std::byte> head(bytes);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(bytes));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

// The header of a JPEG file, from its first 64 KiB or, where metadata and thumbnails make the
// header longer, from the whole file.
JpegHeader header_of(const std::filesystem::path& path) {
  constexpr std::size_t head_bytes = std::size_t{1} << 16;
  std::vector<std::byte> head = read_head(path, head_bytes);
  if (head.size() == head_bytes) {
    try {
      return JpegReader(head, path.string()).header();
    } catch (const allpairs::InputError&) {
      std::error_code error;
      const std::uintmax_t size = std::filesystem::file_size(path, error);
      if (error) throw allpairs::InputError(path.string() + ": cannot read it: " + error.message());
      head = read_head(path, static_cast<std::size_t>(size));
    }
  }
  return JpegReader(head, path.string()).header();
}

}  // namespace

CameraApplication::CameraApplication(const std::filesystem::path& dir,
                                     std::optional<ImageShape> crop)
    : images_(list_images(dir)) {
  std::string failures;
  for (const std::filesystem::path& image : images_) {
    try {
      const JpegHeader header = header_of(image);
      shape_ = {header.width, header.height};
      shape_source_ = image;
      break;
    } catch (const allpairs::InputError& error) {
      failures += fmt::format("\n  {}", error.what());
    }
  }
  if (shape_source_.empty())
    throw allpairs::InputError(fmt::format("{}: none of its {} JPEG files is readable:{}",
                                           dir.string(), images_.size(), failures));
  if (crop) {
    if (crop->width > shape_.width || crop->height > shape_.height)
      throw allpairs::InputError(fmt::format("{}: {}x{} pixels, smaller than --crop {}x{}",
                                             shape_source_.string(), shape_.width, shape_.height,
                                             crop->width, crop->height));
    shape_ = *crop;
    cropped_ = true;
  }
  if (shape_.pixels() > largest_image)
    throw allpairs::InputError(fmt::format("{}: {}x{} pixels; the kernels handle at most 2^31",
                                           shape_source_.string(), shape_.width, shape_.height));
  if (shape_.width < smallest_side || shape_.height < smallest_side)
    throw allpairs::InputError(fmt::format("{}: {}x{} pixels; PRNU extraction needs at least {}x{}",
                                           shape_source_.string(), shape_.width, shape_.height,
                                           smallest_side, smallest_side));
}

ImageShape parse_crop(const std::string& text) {
  unsigned width = 0, height = 0;
  char separator = 0, rest = 0;
  if (std::sscanf(text.c_str(), "%u%c%u%c", &width, &separator, &height, &rest) != 3 ||
      (separator != 'x' && separator != 'X') || width < smallest_side || height < smallest_side ||
      std::uint64_t{width} * height > largest_image)
    throw allpairs::InputError(fmt::format(
        "--crop '{}': expected WIDTHxHEIGHT in pixels (e.g. 2048x1536), each at least {} and "
        "at most 2^31 pixels in all",
        text, smallest_side));
  return {width, height};
}

std::filesystem::path CameraApplication::file_of(allpairs::ItemIndex item) const {
  return images_.at(item);
}

std::vector<std::byte> CameraApplication::parse(allpairs::ItemIndex item,
                                                std::span<const std::byte> file) const {
  const std::string name = images_.at(item).string();
  JpegReader reader(file, name);
  const JpegHeader& header = reader.header();
  if (cropped_ && (header.width < shape_.width || header.height < shape_.height))
    throw allpairs::InputError(fmt::format("{}: {}x{} pixels, smaller than --crop {}x{}", name,
                                           header.width, header.height, shape_.width,
                                           shape_.height));
  if (!cropped_ && (header.width != shape_.width || header.height != shape_.height))
    throw allpairs::InputError(fmt::format(
        "{}: {}x{} pixels, but the photos of this set are {}x{} (as {}); PRNU patterns are only "
        "compared between photos of equal dimensions (--crop WxH compares centre crops of one "
        "size)",
        name, header.width, header.height, shape_.width, shape_.height, shape_source_.string()));
  // Room after the luminance for the extraction's intermediate arrays (it runs in this buffer).
  std::vector<std::byte> parsed(ExtractionScratch::of(shape_).bytes);
  // The allocation holds floats as well as bytes (operator new aligns for any scalar).
  const std::span<float> luminance(reinterpret_cast<float*>(parsed.data()), shape_.pixels());
  if (header.width == shape_.width && header.height == shape_.height) {
    reader.read_luminance(luminance);
    return parsed;
  }
  // The centre crop, at even offsets: the colour filter's 2x2 lattice keeps its phase.
  std::vector<float> whole(std::uint64_t{header.width} * header.height);
  reader.read_luminance(whole);
  const std::uint64_t left = (header.width - shape_.width) / 2 / 2 * 2;
  const std::uint64_t top = (header.height - shape_.height) / 2 / 2 * 2;
  for (std::uint64_t y = 0; y < shape_.height; ++y) {
    const float* row = whole.data() + (top + y) * header.width + left;
    std::copy(row, row + shape_.width,
              luminance.begin() + static_cast<std::ptrdiff_t>(y * shape_.width));
  }
  return parsed;
}

std::uint64_t CameraApplication::item_bytes(allpairs::ItemIndex /*item*/,
                                            std::uint64_t /*parsed_bytes*/) const {
  return slot_bytes();
}

std::uint64_t CameraApplication::slot_bytes() const {
  return PatternLayout::of(shape_).bytes;
}

std::uint64_t CameraApplication::comparison_bytes() const {
  return ComparisonLayout::of(shape_).bytes;
}

std::uint64_t CameraApplication::comparison_result_bytes() const {
  return ComparisonLayout::of(shape_).result_bytes;
}

device::Event CameraApplication::preprocess(allpairs::DeviceContext& context,
                                            allpairs::ItemIndex /*item*/,
                                            const memory::ChunkView& parsed,
                                            const memory::ChunkView& item_view) const {
  return extract_pattern(context, shape_, parsed.argument(device::ElementType::f32),
                         item_view.argument(device::ElementType::f32));
}

device::Event CameraApplication::compare(allpairs::DeviceContext& context,
                                         allpairs::ItemIndex /*left*/,
                                         const memory::ChunkView& left_item,
                                         allpairs::ItemIndex /*right*/,
                                         const memory::ChunkView& right_item,
                                         const memory::ChunkView& comparison) const {
  return compare_patterns(context, shape_, left_item.argument(device::ElementType::f32),
                          right_item.argument(device::ElementType::f32),
                          comparison.argument(device::ElementType::f32),
                          cropped_ ? PeakAt::any_shift : PeakAt::zero_shift);
}

Result CameraApplication::postprocess(allpairs::ItemIndex /*left*/, allpairs::ItemIndex /*right*/,
                                      std::span<const std::byte> comparison) const {
  const std::size_t parts = ComparisonLayout::of(shape_).parts * sizeof(float);
  return Result{ncc_from_parts(comparison.first(parts)),
                pce_from_peak_energy(comparison.subspan(parts))};
}

}  // namespace strata::apps::camera
