#include "camera/camera_application.hpp"

#include <fmt/format.h>

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

CameraApplication::CameraApplication(const std::filesystem::path& dir) : images_(list_images(dir)) {
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
  if (shape_.pixels() > largest_image)
    throw allpairs::InputError(fmt::format("{}: {}x{} pixels; the kernels handle at most 2^31",
                                           shape_source_.string(), shape_.width, shape_.height));
  if (shape_.width < smallest_side || shape_.height < smallest_side)
    throw allpairs::InputError(fmt::format("{}: {}x{} pixels; PRNU extraction needs at least {}x{}",
                                           shape_source_.string(), shape_.width, shape_.height,
                                           smallest_side, smallest_side));
}

std::filesystem::path CameraApplication::file_of(allpairs::ItemIndex item) const {
  return images_.at(item);
}

std::vector<std::byte> CameraApplication::parse(allpairs::ItemIndex item,
                                                std::span<const std::byte> file) const {
  const std::string name = images_.at(item).string();
  JpegReader reader(file, name);
  const JpegHeader& header = reader.header();
  if (header.width != shape_.width || header.height != shape_.height)
    throw allpairs::InputError(fmt::format(
        "{}: {}x{} pixels, but the photos of this set are {}x{} (as {}); PRNU patterns are only "
        "compared between photos of equal dimensions",
        name, header.width, header.height, shape_.width, shape_.height, shape_source_.string()));
  // Room after the luminance for the extraction's intermediate arrays (it runs in this buffer).
  std::vector<std::byte> parsed(ExtractionScratch::of(shape_).bytes);
  // The allocation holds floats as well as bytes (operator new aligns for any scalar).
  reader.read_luminance(std::span(reinterpret_cast<float*>(parsed.data()), shape_.pixels()));
  return parsed;
}

std::uint64_t CameraApplication::item_bytes(allpairs::ItemIndex /*item*/,
                                            std::uint64_t /*parsed_bytes*/) const {
  return slot_bytes();
}

std::uint64_t CameraApplication::comparison_bytes() const {
  return std::uint64_t{correlation_parts} * sizeof(float);
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
  return correlate(context, shape_.pixels(), left_item.argument(device::ElementType::f32),
                   right_item.argument(device::ElementType::f32),
                   comparison.argument(device::ElementType::f32));
}

Result CameraApplication::postprocess(allpairs::ItemIndex /*left*/, allpairs::ItemIndex /*right*/,
                                      std::span<const std::byte> comparison) const {
  return Result{ncc_from_parts(comparison)};
}

}  // namespace strata::apps::camera
