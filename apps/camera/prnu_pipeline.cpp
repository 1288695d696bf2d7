#include "camera/prnu_pipeline.hpp"

#include <cstring>

#include "camera/prnu_kernels.hpp"

namespace strata::apps::camera {

using device::Dim3;
using device::KernelArg;
using device::LaunchGeometry;

device::Event extract_pattern(allpairs::DeviceContext& context, ImageShape shape,
                              const KernelArg& image, const KernelArg& pattern) {
  const std::uint32_t width = shape.width, height = shape.height;
  const auto count = static_cast<std::uint32_t>(shape.pixels());
  const KernelArg& energy = image;  // the image is no longer needed once the residual is out
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
  return context.launch(scale_kernel(), LaunchGeometry{Dim3{count}},
                        {KernelArg::value(count), KernelArg::value(width), pattern, energy});
}

device::Event correlate(allpairs::DeviceContext& context, std::uint64_t values,
                        const KernelArg& left, const KernelArg& right, const KernelArg& parts) {
  return context.launch(correlation_kernel(),
                        LaunchGeometry{Dim3{std::uint64_t{correlation_parts} * reduction_group},
                                       Dim3{reduction_group}, 1},
                        {KernelArg::value(static_cast<std::uint32_t>(values)), left, right, parts});
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

}  // namespace strata::apps::camera
