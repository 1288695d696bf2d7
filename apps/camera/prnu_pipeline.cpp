#include "camera/prnu_pipeline.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "camera/pce_kernels.hpp"
#include "camera/prnu_kernels.hpp"
#include "camera/wiener_kernels.hpp"
#include "strata/device/device.hpp"

namespace strata::apps::camera {

using device::Dim3;
using device::KernelArg;
using device::LaunchGeometry;

namespace {

constexpr std::uint64_t scratch_alignment = 4096;

std::uint64_t aligned(std::uint64_t bytes) {
  return (bytes + scratch_alignment - 1) / scratch_alignment * scratch_alignment;
}

KernelArg at(const KernelArg& array, std::uint64_t offset) {
  return KernelArg::array_of(*array.buffer, device::ElementType::f32, array.byte_offset + offset);
}

}  // namespace

ExtractionScratch ExtractionScratch::of(ImageShape shape) {
  const std::uint64_t half = std::uint64_t{shape.width} / 2 + 1;
  ExtractionScratch scratch;
  scratch.spectrum = 0;
  scratch.power = aligned(shape.height * half * 2 * sizeof(float));
  scratch.energy = scratch.power + aligned(shape.height * half * sizeof(float));
  scratch.bytes = std::max<std::uint64_t>(shape.pixels() * sizeof(float),
                                          scratch.energy + (shape.width + 1) * sizeof(float));
  return scratch;
}

PatternLayout PatternLayout::of(ImageShape shape) {
  const device::FftShape fft{shape.height, shape.width, 1};
  PatternLayout layout;
  layout.spectrum = aligned(fft.real_bytes());
  layout.bytes = layout.spectrum + fft.spectrum_bytes();
  return layout;
}

ComparisonLayout ComparisonLayout::of(ImageShape shape) {
  const device::FftShape fft{shape.height, shape.width, 1};
  ComparisonLayout layout;
  layout.parts = reduction_groups(shape.pixels());
  layout.result_bytes = std::uint64_t{layout.parts + peak_energy_values} * sizeof(float);
  layout.partials = aligned(layout.result_bytes);
  layout.cross_spectrum =
      layout.partials + aligned(std::uint64_t{3} * layout.parts * sizeof(float));
  layout.surface = layout.cross_spectrum + aligned(fft.spectrum_bytes());
  layout.bytes = layout.surface + fft.real_bytes();
  return layout;
}

device::Event extract_pattern(allpairs::DeviceContext& context, ImageShape shape,
                              const KernelArg& image, const KernelArg& pattern) {
  const std::uint32_t width = shape.width, height = shape.height;
  const auto count = static_cast<std::uint32_t>(shape.pixels());
  const ExtractionScratch scratch = ExtractionScratch::of(shape);
  // The image is no longer needed once the residual is out: its buffer holds the rest.
  const KernelArg spectrum = at(image, scratch.spectrum);
  const KernelArg power = at(image, scratch.power);
  const KernelArg energy = at(image, scratch.energy);
  const LaunchGeometry half_spectrum{Dim3{width / 2 + 1, height}, Dim3{0, 0, 0}, 2};
  context.launch(residual_kernel(), LaunchGeometry{Dim3{width, height}, Dim3{0, 0, 0}, 2},
                 {KernelArg::value(width), KernelArg::value(height),
                  KernelArg::value(residual_noise_variance), image, pattern});
  context.launch(
      zero_mean_rows_kernel(),
      LaunchGeometry{Dim3{std::uint64_t{height} * reduction_group}, Dim3{reduction_group}, 1},
      {KernelArg::value(width), KernelArg::value(height), pattern});
  context.launch(zero_mean_columns_kernel(), LaunchGeometry{Dim3{width}},
                 {KernelArg::value(width), KernelArg::value(height), pattern, energy});
  context.launch(inverse_norm_kernel(), LaunchGeometry{Dim3{1}, Dim3{1}, 1},
                 {KernelArg::value(width), energy});
  // The Wiener filter, in order on the compute queue with the launches.
  device::Device& device = context.device();
  device::Queue& compute = device.queue(device::QueueKind::compute);
  const std::shared_ptr<device::FftPlan> fft = device.plan_fft({height, width, 1});
  fft->forward(compute, {*pattern.buffer, pattern.byte_offset},
               {*spectrum.buffer, spectrum.byte_offset});
  context.launch(spectrum_power_kernel(), half_spectrum,
                 {KernelArg::value(width), KernelArg::value(height), spectrum, power});
  context.launch(wiener_scale_kernel(), half_spectrum,
                 {KernelArg::value(width), KernelArg::value(height), spectrum, power, energy});
  fft->inverse(compute, {*spectrum.buffer, spectrum.byte_offset},
               {*pattern.buffer, pattern.byte_offset});
  // Unit norm of the filtered pattern, its columns made zero-mean again on each sub-lattice (the
  // filter keeps them so for even heights; for odd ones it moves their means a little).
  context.launch(zero_mean_columns_kernel(), LaunchGeometry{Dim3{width}},
                 {KernelArg::value(width), KernelArg::value(height), pattern, energy});
  context.launch(inverse_norm_kernel(), LaunchGeometry{Dim3{1}, Dim3{1}, 1},
                 {KernelArg::value(width), energy});
  context.launch(scale_kernel(), LaunchGeometry{Dim3{count}},
                 {KernelArg::value(count), KernelArg::value(width), pattern, energy});
  // The final pattern's half spectrum, for the cross-correlation surfaces of its comparisons.
  return fft->forward(compute, {*pattern.buffer, pattern.byte_offset},
                      {*pattern.buffer, pattern.byte_offset + PatternLayout::of(shape).spectrum});
}

device::Event correlate(allpairs::DeviceContext& context, std::uint64_t values,
                        const KernelArg& left, const KernelArg& right, const KernelArg& parts) {
  const std::uint32_t groups = reduction_groups(values);
  return context.launch(
      correlation_kernel(),
      LaunchGeometry{Dim3{std::uint64_t{groups} * reduction_group}, Dim3{reduction_group}, 1},
      {KernelArg::value(static_cast<std::uint32_t>(values)), KernelArg::value(groups), left, right,
       parts});
}

device::Event compare_patterns(allpairs::DeviceContext& context, ImageShape shape,
                               const KernelArg& left, const KernelArg& right,
                               const KernelArg& comparison, PeakAt peak) {
  const PatternLayout item = PatternLayout::of(shape);
  const ComparisonLayout layout = ComparisonLayout::of(shape);
  const KernelArg cross = at(comparison, layout.cross_spectrum);
  const KernelArg surface = at(comparison, layout.surface);
  const device::FftShape fft_shape{shape.height, shape.width, 1};
  const auto complex_values = static_cast<std::uint32_t>(fft_shape.spectrum_bytes() / 8);
  correlate(context, shape.pixels(), left, right, comparison);
  context.launch(
      cross_spectrum_kernel(), LaunchGeometry{Dim3{complex_values}},
      {KernelArg::value(complex_values), at(left, item.spectrum), at(right, item.spectrum), cross});
  device::Device& device = context.device();
  device.plan_fft(fft_shape)->inverse(device.queue(device::QueueKind::compute),
                                      {*cross.buffer, cross.byte_offset},
                                      {*surface.buffer, surface.byte_offset});
  return peak_and_energy(context, shape, surface, at(comparison, layout.partials), comparison,
                         layout.parts, peak);
}

device::Event peak_and_energy(allpairs::DeviceContext& context, ImageShape shape,
                              const KernelArg& surface, const KernelArg& partials,
                              const KernelArg& result, std::uint32_t at, PeakAt peak) {
  const std::uint32_t groups = reduction_groups(shape.pixels());
  context.launch(
      surface_partials_kernel(),
      LaunchGeometry{Dim3{std::uint64_t{groups} * reduction_group}, Dim3{reduction_group}, 1},
      {KernelArg::value(shape.width), KernelArg::value(shape.height), surface, partials,
       KernelArg::value(groups)});
  return context.launch(peak_energy_kernel(),
                        LaunchGeometry{Dim3{reduction_group}, Dim3{reduction_group}, 1},
                        {KernelArg::value(shape.width), KernelArg::value(shape.height), surface,
                         partials, KernelArg::value(groups), result, KernelArg::value(at),
                         KernelArg::value(std::uint32_t{peak == PeakAt::any_shift})});
}

float ncc_from_parts(std::span<const std::byte> parts) {
  double sum = 0.0;
  for (std::size_t offset = 0; offset + sizeof(float) <= parts.size(); offset += sizeof(float)) {
    float part = 0.0f;
    std::memcpy(&part, parts.data() + offset, sizeof part);
    sum += part;
  }
  return static_cast<float>(sum);
}

float pce_from_peak_energy(std::span<const std::byte> values) {
  float peak = 0.0f, energy = 0.0f;
  std::uint32_t count = 0;
  std::memcpy(&peak, values.data(), sizeof peak);
  std::memcpy(&energy, values.data() + 2 * sizeof(float), sizeof energy);
  std::memcpy(&count, values.data() + 3 * sizeof(float), sizeof count);
  if (count == 0 || !(energy > 0.0f)) return 0.0f;
  const double signed_square = (peak < 0.0f ? -1.0 : 1.0) * double{peak} * peak;
  return static_cast<float>(signed_square / (double{energy} / count));
}

}  // namespace strata::apps::camera
