// The PCE kernels against double-precision references, on every backend (CPU; OpenCL where an
// ICD offers a device, e.g. PoCL): the cross-correlation surface of two extracted patterns
// against a direct (O(n^2)) circular cross-correlation, and the peak and energy of a surface
// whose peak's neighbourhood wraps around the corner.
#include "camera/pce_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "camera/prnu_kernels.hpp"
#include "camera/prnu_pipeline.hpp"
#include "camera/random_stream.hpp"
#include "test_support.hpp"

namespace strata::apps::camera {
namespace {

using device::KernelArg;
using testing::KernelHarness;

using Image = std::vector<float>;

// What prnu_peak_energy writes, and the PCE from it.
struct PeakEnergy {
  double peak = 0;
  std::uint32_t index = 0;
  double energy = 0;
  std::uint32_t count = 0;
  double pce() const { return (peak < 0 ? -1 : 1) * peak * peak / (energy / count); }
};

PeakEnergy read_peak_energy(const std::vector<float>& values, std::size_t at) {
  PeakEnergy result;
  result.peak = values[at];
  std::memcpy(&result.index, &values[at + 1], sizeof result.index);
  result.energy = values[at + 2];
  std::memcpy(&result.count, &values[at + 3], sizeof result.count);
  return result;
}

// The reference: the largest value (or, at zero shift, the first), and the squares summed over
// every index but those of the 11 x 11 offsets around it, taken modulo the sides.
PeakEnergy reference_peak_energy(const std::vector<double>& surface, std::uint32_t width,
                                 std::uint32_t height, PeakAt at = PeakAt::any_shift) {
  PeakEnergy result;
  result.index = at == PeakAt::zero_shift
                     ? 0
                     : static_cast<std::uint32_t>(std::max_element(surface.begin(), surface.end()) -
                                                  surface.begin());
  result.peak = surface[result.index];
  const std::int64_t px = result.index % width, py = result.index / width;
  const std::int64_t radius = peak_neighbourhood / 2;
  std::set<std::size_t> near;
  for (std::int64_t dy = -radius; dy <= radius; ++dy)
    for (std::int64_t dx = -radius; dx <= radius; ++dx)
      near.insert(static_cast<std::size_t>(((py + dy) % height + height) % height * width +
                                           ((px + dx) % width + width) % width));
  for (std::size_t i = 0; i < surface.size(); ++i)
    if (!near.contains(i)) {
      result.energy += surface[i] * surface[i];
      ++result.count;
    }
  return result;
}

// Noise images: the right one the left one circularly shifted by (shift_x, shift_y) plus
// independent noise, so their patterns correlate best at that shift.
std::pair<Image, Image> shifted_pair(std::uint32_t width, std::uint32_t height,
                                     std::uint32_t shift_x, std::uint32_t shift_y) {
  RandomStream random(11, {});
  Image left(std::size_t{width} * height), right(left.size());
  for (float& v : left)
    v = static_cast<float>(100.0 + 3.0 * random.normal());
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x)
      right[std::size_t{(y + shift_y) % height} * width + (x + shift_x) % width] =
          static_cast<float>(left[std::size_t{y} * width + x] + 2.0 * random.normal());
  return {left, right};
}

// peak_and_energy on `surface` (width x height) into result[at, at + 4) of a buffer of `at` + 4
// floats that start at -1; returns the whole buffer.
std::vector<float> peak_and_energy_of(device::Device& device, const Image& surface,
                                      ImageShape shape, std::uint32_t at, PeakAt peak) {
  KernelHarness harness(device);
  const auto in = harness.upload(surface);
  const auto partials = harness.zeros(3 * std::size_t{reduction_groups(shape.pixels())});
  const auto out = harness.upload(Image(at + peak_energy_values, -1.0f));
  peak_and_energy(harness.context(), shape, KernelArg::array<float>(in),
                  KernelArg::array<float>(partials), KernelArg::array<float>(out), at, peak)
      .wait();
  return harness.download(out, at + peak_energy_values);
}

class PceKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(PceKernels, TheSurfacesPeakAndEnergyMatchADirectCrossCorrelation) {
  CAMERA_REQUIRE_DEVICE(device);
  constexpr std::uint32_t width = 24, height = 16;
  const ImageShape shape{width, height};
  // The right image shifted by (2, -3): the surface peaks at (-2, 3), its neighbourhood wrapping
  // around both sides.
  const auto [left_image, right_image] = shifted_pair(width, height, 2, height - 3);
  KernelHarness harness(device);
  std::vector<Image> patterns;
  std::vector<device::DeviceBuffer> items;
  for (const Image* image : {&left_image, &right_image}) {
    Image room = *image;
    room.resize(ExtractionScratch::of(shape).bytes / sizeof(float), 0.0f);
    const auto scratch = harness.upload(room);
    items.push_back(harness.zeros(PatternLayout::of(shape).bytes / sizeof(float)));
    extract_pattern(harness.context(), shape, KernelArg::array<float>(scratch),
                    KernelArg::array<float>(items.back()))
        .wait();
    patterns.push_back(harness.download(items.back(), shape.pixels()));
  }
  const ComparisonLayout layout = ComparisonLayout::of(shape);
  const auto comparison = harness.upload(Image(layout.bytes / sizeof(float), -1.0f));
  compare_patterns(harness.context(), shape, KernelArg::array<float>(items[0]),
                   KernelArg::array<float>(items[1]), KernelArg::array<float>(comparison),
                   PeakAt::any_shift)
      .wait();
  const std::vector<float> result =
      harness.download(comparison, layout.result_bytes / sizeof(float));

  // c[k] = sum_i left[i + k] * right[i], circular in both directions.
  std::vector<double> surface(shape.pixels());
  for (std::uint32_t ky = 0; ky < height; ++ky)
    for (std::uint32_t kx = 0; kx < width; ++kx)
      for (std::uint32_t y = 0; y < height; ++y)
        for (std::uint32_t x = 0; x < width; ++x)
          surface[ky * width + kx] +=
              double{patterns[0][(y + ky) % height * width + (x + kx) % width]} *
              patterns[1][y * width + x];
  const PeakEnergy expected = reference_peak_energy(surface, width, height);
  ASSERT_EQ(expected.index, 3 * width + width - 2) << "the shift the data was made with";
  // The device surface is the FFT's, unnormalised: n times c. The PCE does not depend on it.
  const double n = double(shape.pixels());
  const PeakEnergy got = read_peak_energy(result, layout.parts);
  EXPECT_EQ(got.index, expected.index);
  EXPECT_NEAR(got.peak / n, expected.peak, 1e-5);
  EXPECT_EQ(got.count, shape.pixels() - peak_neighbourhood * peak_neighbourhood);
  EXPECT_EQ(got.count, expected.count);
  EXPECT_NEAR(got.energy / (n * n), expected.energy, 1e-5 * expected.energy);
  EXPECT_NEAR(got.pce(), expected.pce(), 1e-4 * expected.pce());
  const auto bytes = std::as_bytes(std::span(result));
  EXPECT_NEAR(pce_from_peak_energy(bytes.subspan(layout.parts * sizeof(float))), expected.pce(),
              1e-4 * expected.pce());
  // The NCC parts before them: the surface at the origin.
  EXPECT_NEAR(ncc_from_parts(bytes.first(layout.parts * sizeof(float))), surface[0], 1e-5);
}

TEST_P(PceKernels, PeakEnergyLeavesOutTheNeighbourhoodAcrossTheCorner) {
  CAMERA_REQUIRE_DEVICE(device);
  // Wider than a work-group, the peak in the last column of the first row.
  for (const auto& [width, height] : {std::pair{24u, 16u}, std::pair{300u, 20u}}) {
    RandomStream random(width, {});
    std::vector<double> surface(std::size_t{width} * height);
    for (double& v : surface)
      v = random.normal();
    surface[width - 1] = 40.0;
    const Image values(surface.begin(), surface.end());
    std::vector<double> rounded(values.begin(), values.end());
    const PeakEnergy expected = reference_peak_energy(rounded, width, height);
    const std::vector<float> result =
        peak_and_energy_of(device, values, {width, height}, 3, PeakAt::any_shift);
    EXPECT_EQ(result[0], -1.0f) << "values before `at` are left alone";
    const PeakEnergy got = read_peak_energy(result, 3);
    EXPECT_EQ(got.index, width - 1);
    EXPECT_EQ(got.peak, 40.0);
    EXPECT_EQ(got.count, expected.count);
    EXPECT_NEAR(got.energy, expected.energy, 1e-5 * expected.energy) << width << "x" << height;
  }
}

TEST_P(PceKernels, AtZeroShiftThePeakIsTheOriginsValueWhereverTheLargestIs) {
  CAMERA_REQUIRE_DEVICE(device);
  // The largest value far from the origin; the origin's value, negative, is the peak at zero
  // shift, and the energy leaves out the origin's neighbourhood (wrapping around every corner).
  for (const auto& [width, height] : {std::pair{24u, 16u}, std::pair{300u, 20u}}) {
    RandomStream random(width + 1, {});
    std::vector<double> surface(std::size_t{width} * height);
    for (std::size_t i = 0; i < surface.size(); ++i)
      surface[i] = i == 0 ? -7.0 : random.normal();
    surface[std::size_t{height / 2} * width + width / 2] = 40.0;
    const Image values(surface.begin(), surface.end());
    std::vector<double> rounded(values.begin(), values.end());
    const PeakEnergy expected = reference_peak_energy(rounded, width, height, PeakAt::zero_shift);
    const PeakEnergy got = read_peak_energy(
        peak_and_energy_of(device, values, {width, height}, 0, PeakAt::zero_shift), 0);
    EXPECT_EQ(got.index, 0u);
    EXPECT_EQ(got.peak, -7.0);
    EXPECT_EQ(got.count, expected.count);
    EXPECT_NEAR(got.energy, expected.energy, 1e-5 * expected.energy) << width << "x" << height;
    EXPECT_LT(got.pce(), 0.0) << "the sign of the peak is kept";
  }
}

TEST_P(PceKernels, ASurfaceOfManyWorkGroupsKeepsTheFirstOfEqualPeaks) {
  CAMERA_REQUIRE_DEVICE(device);
  // 1,500 x 1,000 values, so that many work-groups share the surface; the largest value three
  // times, in the shares of different groups, the neighbourhood of the first wrapping around the
  // bottom edge.
  constexpr std::uint32_t width = 1500, height = 1000;
  ASSERT_GT(reduction_groups(std::uint64_t{width} * height), 100u);
  RandomStream random(5, {});
  std::vector<double> surface(std::size_t{width} * height);
  for (double& v : surface)
    v = random.normal();
  const std::size_t first = std::size_t{height - 2} * width + 700;
  surface[std::size_t{400} * width + 9] = 25.0;  // smaller: not the peak
  surface[first] = 30.0;
  surface[first + 200] = 30.0;  // equal, later
  surface[surface.size() - 1] = 30.0;
  const Image values(surface.begin(), surface.end());
  std::vector<double> rounded(values.begin(), values.end());
  const PeakEnergy expected = reference_peak_energy(rounded, width, height);
  ASSERT_EQ(expected.index, first);
  const PeakEnergy got = read_peak_energy(
      peak_and_energy_of(device, values, {width, height}, 0, PeakAt::any_shift), 0);
  EXPECT_EQ(got.index, first);
  EXPECT_EQ(got.peak, 30.0);
  EXPECT_EQ(got.count, expected.count);
  EXPECT_NEAR(got.energy, expected.energy, 1e-5 * expected.energy);
}

TEST_P(PceKernels, ASideShorterThanTheNeighbourhoodLeavesOutEachValueOnce) {
  CAMERA_REQUIRE_DEVICE(device);
  // 7 and 30 columns by 9 and 40 rows: a side of fewer than 11 values has every one of its values
  // within the neighbourhood's reach, counted once although the square wraps onto itself.
  for (const auto& [width, height] :
       {std::pair{7u, 40u}, std::pair{30u, 9u}, std::pair{7u, 9u}, std::pair{11u, 12u}}) {
    RandomStream random(width * height, {});
    std::vector<double> surface(std::size_t{width} * height);
    for (double& v : surface)
      v = random.normal();
    surface[std::size_t{height / 3} * width + width / 2] = 9.0;
    const Image values(surface.begin(), surface.end());
    std::vector<double> rounded(values.begin(), values.end());
    for (const PeakAt at : {PeakAt::any_shift, PeakAt::zero_shift}) {
      const PeakEnergy expected = reference_peak_energy(rounded, width, height, at);
      const PeakEnergy got =
          read_peak_energy(peak_and_energy_of(device, values, {width, height}, 0, at), 0);
      SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height));
      EXPECT_EQ(got.index, expected.index);
      EXPECT_EQ(got.count, expected.count);
      EXPECT_NEAR(got.energy, expected.energy, 1e-5 * expected.energy + 1e-6);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PceKernels, ::testing::Values("cpu", "opencl"),
                         [](const auto& backend) { return backend.param; });

}  // namespace
}  // namespace strata::apps::camera
