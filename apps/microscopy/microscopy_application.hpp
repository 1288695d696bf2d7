#pragma once
// The all-pairs application over a directory of particle files: parse JSON on the CPU, pack and
// self-score each particle on a device, register each pair on a device.

#include <filesystem>
#include <vector>

#include "microscopy/registration_options.hpp"
#include "microscopy/registration_result.hpp"
#include "strata/allpairs/application.hpp"

namespace strata::apps::microscopy {

// The particle files of `dir`: every *.json except truth.json, sorted by name. A missing
// directory or one without particle files is an allpairs::InputError naming it.
std::vector<std::filesystem::path> particle_files(const std::filesystem::path& dir);

// Registration of every pair of particles of one data directory.
class MicroscopyApplication final : public allpairs::Application<RegistrationResult> {
 public:
  // Over particle_files(dir).
  explicit MicroscopyApplication(const std::filesystem::path& dir,
                                 RegistrationOptions options = {});

  std::string name() const override { return "microscopy"; }
  std::size_t item_count() const override { return files_.size(); }
  std::filesystem::path file_of(allpairs::ItemIndex item) const override;

  std::vector<std::byte> parse(allpairs::ItemIndex item,
                               std::span<const std::byte> file) const override;
  std::uint64_t item_bytes(allpairs::ItemIndex item, std::uint64_t parsed_bytes) const override;
  std::uint64_t slot_bytes() const override { return slot_bytes_; }
  std::uint64_t comparison_bytes() const override;

  device::Event preprocess(allpairs::DeviceContext& context, allpairs::ItemIndex item,
                           const memory::ChunkView& parsed,
                           const memory::ChunkView& item_view) const override;
  device::Event compare(allpairs::DeviceContext& context, allpairs::ItemIndex left,
                        const memory::ChunkView& left_item, allpairs::ItemIndex right,
                        const memory::ChunkView& right_item,
                        const memory::ChunkView& comparison) const override;

  RegistrationResult postprocess(allpairs::ItemIndex left, allpairs::ItemIndex right,
                                 std::span<const std::byte> comparison) const override;

  const RegistrationOptions& options() const { return options_; }

 private:
  std::vector<std::filesystem::path> files_;
  RegistrationOptions options_;
  std::uint64_t slot_bytes_ = 0;
};

}  // namespace strata::apps::microscopy
