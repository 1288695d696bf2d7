#include "microscopy/microscopy_application.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numbers>
#include <string_view>

#include "microscopy/device_layout.hpp"
#include "microscopy/microscopy_app.hpp"
#include "microscopy/particle_json.hpp"
#include "microscopy/registration_kernels.hpp"
#include "microscopy/truth_file.hpp"

namespace strata::apps::microscopy {
namespace {

using device::Dim3;
using device::ElementType;
using device::KernelArg;
using device::LaunchGeometry;
namespace L = layout;

// Bytes of JSON text per localization assumed when no particle file can be read.
constexpr double fallback_bytes_per_localization = 24.0;

void check_options(const RegistrationOptions& options) {
  auto refuse = [](const std::string& what) {
    throw Error(fmt::format("microscopy registration: {}", what));
  };
  if (options.coarse_angles < 1) refuse("coarse angles must be at least 1");
  if (!(options.coarse_scale > 0) || !(options.fine_scale > 0))
    refuse(
        fmt::format("scales {} and {} must be positive", options.coarse_scale, options.fine_scale));
  if (!(options.translation_step >= 0))
    refuse(fmt::format("translation step {} is negative", options.translation_step));
}

}  // namespace

std::vector<std::filesystem::path> particle_files(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    throw allpairs::InputError(fmt::format("{}: not a directory of particle files", dir.string()));
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto& path = entry.path();
    if (entry.is_regular_file() && path.extension() == ".json" &&
        path.filename() != truth_file_name)
      files.push_back(path);
  }
  if (files.empty())
    throw allpairs::InputError(fmt::format("{}: no particle files (*.json)", dir.string()));
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// A typical slot: the mean file size over the bytes per localization of the first file (one
// '[' per localization plus the array's own), without parsing every file up front.
std::uint64_t estimate_slot_bytes(const std::vector<std::filesystem::path>& files) {
  double total_bytes = 0;
  for (const auto& file : files) {
    std::error_code error;
    const auto size = std::filesystem::file_size(file, error);
    if (!error) total_bytes += static_cast<double>(size);
  }
  double bytes_per_localization = fallback_bytes_per_localization;
  std::error_code error;
  std::string text(std::filesystem::file_size(files.front(), error), '\0');
  if (error) text.clear();
  std::ifstream first(files.front(), std::ios::binary);
  if (!first.read(text.data(), static_cast<std::streamsize>(text.size()))) text.clear();
  const auto brackets = std::count(text.begin(), text.end(), '[');
  if (brackets > 1)
    bytes_per_localization = static_cast<double>(text.size()) / static_cast<double>(brackets - 1);
  const double localizations =
      std::ceil(total_bytes / static_cast<double>(files.size()) / bytes_per_localization);
  return L::item_floats(static_cast<std::uint64_t>(std::max(1.0, localizations))) * sizeof(float);
}

KernelArg floats(const memory::ChunkView& view) {
  return view.argument(ElementType::f32);
}

}  // namespace

MicroscopyApplication::MicroscopyApplication(const std::filesystem::path& dir,
                                             RegistrationOptions options)
    : files_(particle_files(dir)), options_(options) {
  check_options(options_);
  slot_bytes_ = estimate_slot_bytes(files_);
}

std::filesystem::path MicroscopyApplication::file_of(allpairs::ItemIndex item) const {
  return files_.at(item);
}

std::vector<std::byte> MicroscopyApplication::parse(allpairs::ItemIndex item,
                                                    std::span<const std::byte> file) const {
  const std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
  const Particle particle = parse_particle(text, file_of(item));
  std::vector<float> values;
  values.reserve(L::parsed_floats(particle.size()));
  values.push_back(static_cast<float>(particle.size()));
  for (const Localization& l : particle) {
    values.push_back(l.x);
    values.push_back(l.y);
    values.push_back(l.sigma);
  }
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::uint64_t MicroscopyApplication::item_bytes(allpairs::ItemIndex item,
                                                std::uint64_t parsed_bytes) const {
  const std::uint64_t parsed_floats = parsed_bytes / sizeof(float);
  if (parsed_bytes % sizeof(float) != 0 || parsed_floats < L::parsed_header ||
      (parsed_floats - L::parsed_header) % 3 != 0)
    throw Error(fmt::format("{}: {} parsed bytes are not a parsed particle", file_of(item).string(),
                            parsed_bytes));
  return L::item_floats((parsed_floats - L::parsed_header) / 3) * sizeof(float);
}

std::uint64_t MicroscopyApplication::comparison_bytes() const {
  return L::comparison_floats(options_.coarse_angles) * sizeof(float);
}

device::Event MicroscopyApplication::preprocess(allpairs::DeviceContext& context,
                                                allpairs::ItemIndex /*item*/,
                                                const memory::ChunkView& parsed,
                                                const memory::ChunkView& item_view) const {
  const Dim3 group{L::group_size};
  return context.launch(registration_kernels().preprocess, {group, group, 1},
                        {KernelArg::value(options_.fine_scale), floats(parsed), floats(item_view)});
}

device::Event MicroscopyApplication::compare(allpairs::DeviceContext& context,
                                             allpairs::ItemIndex /*left*/,
                                             const memory::ChunkView& left_item,
                                             allpairs::ItemIndex /*right*/,
                                             const memory::ChunkView& right_item,
                                             const memory::ChunkView& comparison) const {
  const RegistrationKernels& kernels = registration_kernels();
  const KernelArg left = floats(left_item);
  const KernelArg right = floats(right_item);
  const KernelArg state = floats(comparison);
  const Dim3 group{L::group_size};
  const std::uint32_t angles = options_.coarse_angles;
  const auto scores = [&](std::uint32_t stage, std::uint32_t candidates, float scale) {
    context.launch(kernels.candidate_scores, {Dim3{candidates * L::group_size}, group, 1},
                   {KernelArg::value(stage), KernelArg::value(angles),
                    KernelArg::value(options_.translation_iterations), KernelArg::value(scale),
                    left, right, state});
  };
  // The first compass steps reach halfway to the neighbouring coarse rotations.
  const float angle_step = std::numbers::pi_v<float> / static_cast<float>(angles);
  const auto select = [&](std::uint32_t stage) {
    context.launch(kernels.select, {Dim3{1}},
                   {KernelArg::value(stage), KernelArg::value(angles), KernelArg::value(angle_step),
                    KernelArg::value(options_.translation_step), state});
  };

  scores(L::stage_coarse, angles, options_.coarse_scale);
  select(L::stage_coarse);
  for (std::uint32_t round = 0; round < options_.refinement_rounds; ++round) {
    scores(L::stage_refine, L::refine_candidates, options_.fine_scale);
    select(L::stage_refine);
  }
  return context.launch(kernels.finish, {group, group, 1},
                        {KernelArg::value(options_.fine_scale), left, right, state});
}

RegistrationResult MicroscopyApplication::postprocess(allpairs::ItemIndex left,
                                                      allpairs::ItemIndex right,
                                                      std::span<const std::byte> comparison) const {
  if (comparison.size() < comparison_bytes())
    throw Error(fmt::format("microscopy: the comparison of items {} and {} has {} bytes, not {}",
                            left, right, comparison.size(), comparison_bytes()));
  const auto value = [&](std::uint32_t index) {
    float v = 0;
    std::memcpy(&v, comparison.data() + index * sizeof(float), sizeof v);
    return v;
  };
  double degrees =
      std::remainder(static_cast<double>(value(L::state_angle)) * 180.0 / std::numbers::pi, 360.0);
  if (degrees <= -180.0) degrees += 360.0;
  return {value(L::result_score), static_cast<float>(degrees), value(L::result_bhattacharyya),
          value(L::state_tx), value(L::state_ty)};
}

std::unique_ptr<allpairs::ApplicationBase> open(const std::filesystem::path& dir) {
  return std::make_unique<MicroscopyApplication>(dir);
}

std::unique_ptr<allpairs::ApplicationBase> open(const std::filesystem::path& dir,
                                                const RegistrationOptions& options) {
  return std::make_unique<MicroscopyApplication>(dir, options);
}

}  // namespace strata::apps::microscopy
