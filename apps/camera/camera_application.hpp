#pragma once
// The common-source camera identification application (rocket paper §5.1) on the all-pairs
// interface: photos (JPEG) are decoded to luminance on the CPU, their PRNU patterns extracted on
// a device, and every pair's patterns compared on a device by normalized cross-correlation and
// by peak-to-correlation energy.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "camera/prnu_pipeline.hpp"
#include "strata/allpairs/application.hpp"

namespace strata::apps::camera {

// One pair's result: the normalized cross-correlation of the two photos' PRNU patterns (near 0
// for different cameras, clearly positive for the same camera) and the peak-to-correlation
// energy of their cross-correlation surface (small for different cameras, large for the same).
struct Result {
  float ncc = 0.0f;
  float pce = 0.0f;
};

// The application over one data directory.
class CameraApplication final : public allpairs::Application<Result> {
 public:
  // Lists the photos of `dir` and reads the first readable one's header: every photo of the set
  // must have its dimensions (as in the paper), or, with `crop`, at least the crop's, whose
  // centre is then compared. InputError naming the directory or file.
  explicit CameraApplication(const std::filesystem::path& dir,
                             std::optional<ImageShape> crop = std::nullopt);

  std::string name() const override { return "camera"; }
  std::size_t item_count() const override { return images_.size(); }
  std::filesystem::path file_of(allpairs::ItemIndex item) const override;

  // The photo's luminance as floats (width * height); InputError naming the file when it is not
  // a readable JPEG or has other dimensions than the set.
  std::vector<std::byte> parse(allpairs::ItemIndex item,
                               std::span<const std::byte> file) const override;
  std::uint64_t item_bytes(allpairs::ItemIndex item, std::uint64_t parsed_bytes) const override;
  std::uint64_t slot_bytes() const override;
  std::uint64_t comparison_bytes() const override;
  std::uint64_t comparison_result_bytes() const override;

  device::Event preprocess(allpairs::DeviceContext& context, allpairs::ItemIndex item,
                           const memory::ChunkView& parsed,
                           const memory::ChunkView& item_view) const override;
  device::Event compare(allpairs::DeviceContext& context, allpairs::ItemIndex left,
                        const memory::ChunkView& left_item, allpairs::ItemIndex right,
                        const memory::ChunkView& right_item,
                        const memory::ChunkView& comparison) const override;
  Result postprocess(allpairs::ItemIndex left, allpairs::ItemIndex right,
                     std::span<const std::byte> comparison) const override;

  ImageShape shape() const { return shape_; }

 private:
  std::vector<std::filesystem::path> images_;
  ImageShape shape_;
  std::filesystem::path shape_source_;  // the photo whose header set the shape
  bool cropped_ = false;                // shape_ is a centre crop of each photo
};

}  // namespace strata::apps::camera
