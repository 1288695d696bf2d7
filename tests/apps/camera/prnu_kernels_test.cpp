// The PRNU kernels against double-precision references, on every backend (CPU; OpenCL where an
// ICD offers a device, e.g. PoCL).
#include "camera/prnu_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <vector>

#include "camera/prnu_pipeline.hpp"
#include "camera/random_stream.hpp"
#include "test_support.hpp"

namespace strata::apps::camera {
namespace {

using device::Dim3;
using device::KernelArg;
using device::LaunchGeometry;
using testing::KernelHarness;

using Image = std::vector<float>;

// A gradient with a bright rectangle (hard edges) and noise of standard deviation 3.
Image test_image(std::uint32_t width, std::uint32_t height, std::uint64_t seed) {
  RandomStream random(seed, {});
  Image image(std::size_t{width} * height);
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x) {
      const bool inside = x > width / 2 && y > height / 4 && y < 3 * height / 4;
      image[std::size_t{y} * width + x] = static_cast<float>(
          100.0 + 0.5 * x + 0.3 * y + (inside ? 60.0 : 0.0) + 3.0 * random.normal());
    }
  return image;
}

std::vector<double> reference_residual(const Image& image, std::uint32_t width,
                                       std::uint32_t height, double noise_variance) {
  std::vector<double> residual(image.size());
  for (std::int64_t y = 0; y < height; ++y)
    for (std::int64_t x = 0; x < width; ++x) {
      double sum = 0.0, squares = 0.0;
      for (std::int64_t dy = -1; dy <= 1; ++dy)
        for (std::int64_t dx = -1; dx <= 1; ++dx) {
          const std::int64_t yy = std::clamp<std::int64_t>(y + dy, 0, height - 1);
          const std::int64_t xx = std::clamp<std::int64_t>(x + dx, 0, width - 1);
          const double v = image[static_cast<std::size_t>(yy * width + xx)];
          sum += v;
          squares += v * v;
        }
      const double mean = sum / 9.0, variance = std::max(squares / 9.0 - mean * mean, 0.0);
      const double centre = image[static_cast<std::size_t>(y * width + x)];
      residual[static_cast<std::size_t>(y * width + x)] =
          (centre - mean) * std::min(1.0, noise_variance / variance);
    }
  return residual;
}

// Floats of an extracted item's buffer: the pattern and its half spectrum.
std::size_t item_floats(std::uint32_t width, std::uint32_t height) {
  return PatternLayout::of({width, height}).bytes / sizeof(float);
}

// The image followed by the extraction's scratch room (what parse() gives).
Image with_scratch(Image image, std::uint32_t width, std::uint32_t height) {
  image.resize(ExtractionScratch::of({width, height}).bytes / sizeof(float), 0.0f);
  return image;
}

// The 2-D DFT of a real or complex array (sign -1 forward, +1 inverse, unnormalised), row by
// row then column by column.
using Spectrum = std::vector<std::complex<double>>;
Spectrum dft_2d(Spectrum a, std::uint32_t width, std::uint32_t height, int sign) {
  const auto transform = [&](std::size_t first, std::size_t stride, std::uint32_t n) {
    Spectrum out(n);
    for (std::uint32_t k = 0; k < n; ++k)
      for (std::uint32_t j = 0; j < n; ++j)
        out[k] += a[first + j * stride] * std::polar(1.0, sign * 2 * std::numbers::pi *
                                                              double(std::uint64_t{k} * j % n) / n);
    for (std::uint32_t k = 0; k < n; ++k)
      a[first + k * stride] = out[k];
  };
  for (std::uint32_t y = 0; y < height; ++y)
    transform(std::size_t{y} * width, 1, width);
  for (std::uint32_t x = 0; x < width; ++x)
    transform(x, width, height);
  return a;
}

// The Wiener filter in the Fourier domain on the full spectrum: F *= variance / max(variance,
// smallest mean of |F|^2 / n over 3x3 .. 9x9 windows, zero outside).
void reference_wiener(std::vector<double>& p, std::uint32_t width, std::uint32_t height) {
  const double n = double(width) * height;
  double variance = 0.0;
  for (const double v : p)
    variance += v * v / n;
  Spectrum f = dft_2d(Spectrum(p.begin(), p.end()), width, height, -1);
  std::vector<double> power(f.size());
  for (std::size_t i = 0; i < f.size(); ++i)
    power[i] = std::norm(f[i]) / n;
  Spectrum scaled = f;
  for (std::int64_t u = 0; u < height; ++u)
    for (std::int64_t v = 0; v < width; ++v) {
      double smallest = std::numeric_limits<double>::max();
      for (const int side : {3, 5, 7, 9}) {
        double sum = 0.0;
        for (std::int64_t du = -side / 2; du <= side / 2; ++du)
          for (std::int64_t dv = -side / 2; dv <= side / 2; ++dv)
            if (u + du >= 0 && u + du < height && v + dv >= 0 && v + dv < width)
              sum += power[static_cast<std::size_t>((u + du) * width + v + dv)];
        smallest = std::min(smallest, sum / (side * side));
      }
      if (smallest > variance)
        scaled[static_cast<std::size_t>(u * width + v)] *= variance / smallest;
    }
  const Spectrum back = dft_2d(scaled, width, height, +1);
  for (std::size_t i = 0; i < p.size(); ++i)
    p[i] = back[i].real() / n;
}

// Subtracts from each of `lines` lines of `length` values (value i of line l at
// p[l * line_step + i * value_step]) the mean of its values of each parity of i: with rows, then
// columns, every row and column of each colour-filter 2x2 sub-lattice becomes zero-mean.
void zero_mean_by_parity(std::vector<double>& p, std::uint32_t lines, std::uint32_t length,
                         std::size_t line_step, std::size_t value_step) {
  for (std::uint32_t l = 0; l < lines; ++l)
    for (std::uint32_t parity = 0; parity < 2; ++parity) {
      double sum = 0.0, count = 0.0;
      for (std::uint32_t i = parity; i < length; i += 2, ++count)
        sum += p[l * line_step + i * value_step];
      for (std::uint32_t i = parity; i < length; i += 2)
        p[l * line_step + i * value_step] -= sum / count;
    }
}

// Residual, zero-mean rows and columns of each colour-filter sub-lattice, Wiener filter, unit
// norm.
std::vector<double> reference_pattern(const Image& image, std::uint32_t width,
                                      std::uint32_t height) {
  std::vector<double> p = reference_residual(image, width, height, residual_noise_variance);
  zero_mean_by_parity(p, height, width, width, 1);  // rows
  zero_mean_by_parity(p, width, height, 1, width);  // columns
  reference_wiener(p, width, height);
  // The pipeline makes the columns of each sub-lattice zero-mean again after the filter (exact
  // already for even heights; for odd ones the filter moves their means a little).
  zero_mean_by_parity(p, width, height, 1, width);
  double squares = 0.0;
  for (const double v : p)
    squares += v * v;
  for (double& v : p)
    v /= std::sqrt(squares);
  return p;
}

class PrnuKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(PrnuKernels, ResidualIsTheLocalWienerFilterResidual) {
  CAMERA_REQUIRE_DEVICE(device);
  constexpr std::uint32_t width = 37, height = 23;  // not multiples of anything
  const Image image = test_image(width, height, 3);
  KernelHarness harness(device);
  const auto in = harness.upload(image);
  const auto out = harness.zeros(item_floats(width, height));
  harness.context().launch(
      residual_kernel(), LaunchGeometry{Dim3{width, height}, Dim3{0, 0, 0}, 2},
      {KernelArg::value(width), KernelArg::value(height), KernelArg::value(residual_noise_variance),
       KernelArg::array<float>(in), KernelArg::array<float>(out)});
  const std::vector<float> residual = harness.download(out, image.size());
  const std::vector<double> expected =
      reference_residual(image, width, height, residual_noise_variance);
  for (std::size_t i = 0; i < image.size(); ++i)
    ASSERT_NEAR(residual[i], expected[i], 2e-3) << "pixel " << i % width << "," << i / width;
  // The edges of the rectangle are attenuated: scene content, not sensor noise.
  const std::size_t edge = std::size_t{height / 2} * width + width / 2 + 1;
  EXPECT_LT(std::abs(residual[edge]), std::abs(image[edge] - image[edge - 1]) / 4);
}

TEST_P(PrnuKernels, ExtractedPatternIsZeroMeanUnitNormAndMatchesTheReference) {
  CAMERA_REQUIRE_DEVICE(device);
  // Rows longer than a work-group; 63 rows: an odd length (clFFT takes products of 2, 3, 5, 7).
  constexpr std::uint32_t width = 150, height = 63;
  const Image image = test_image(width, height, 5);
  KernelHarness harness(device);
  const auto scratch = harness.upload(with_scratch(image, width, height));
  const auto out = harness.zeros(item_floats(width, height));
  extract_pattern(harness.context(), ImageShape{width, height}, KernelArg::array<float>(scratch),
                  KernelArg::array<float>(out))
      .wait();
  const std::vector<float> pattern = harness.download(out, image.size());
  const std::vector<double> expected = reference_pattern(image, width, height);
  double squares = 0.0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    ASSERT_NEAR(pattern[i], expected[i], 1e-5) << "pixel " << i % width << "," << i / width;
    squares += double{pattern[i]} * pattern[i];
  }
  EXPECT_NEAR(squares, 1.0, 1e-5);
  for (std::uint32_t x = 0; x < width; ++x) {
    double column = 0.0;
    for (std::uint32_t y = 0; y < height; ++y)
      column += pattern[y * width + x];
    ASSERT_NEAR(column, 0.0, 1e-5) << "column " << x;
  }
}

TEST_P(PrnuKernels, ZeroMeanRowsAndColumnsRemoveALinearPattern) {
  CAMERA_REQUIRE_DEVICE(device);
  // Only row and column offsets (what every camera of a model shares), below the noise level.
  constexpr std::uint32_t width = 200, height = 40;
  RandomStream random(11, {});
  std::vector<float> rows(height), columns(width);
  for (float& v : rows)
    v = static_cast<float>(random.uniform(-1.0, 1.0));
  for (float& v : columns)
    v = static_cast<float>(random.uniform(-1.0, 1.0));
  Image image(std::size_t{width} * height);
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x)
      image[y * width + x] = 120.0f + rows[y] + columns[x];

  KernelHarness harness(device);
  const auto in = harness.upload(image);
  const auto pattern = harness.zeros(image.size());
  const auto energy = harness.zeros(width + 1);
  auto& context = harness.context();
  context.launch(
      residual_kernel(), LaunchGeometry{Dim3{width, height}, Dim3{0, 0, 0}, 2},
      {KernelArg::value(width), KernelArg::value(height), KernelArg::value(residual_noise_variance),
       KernelArg::array<float>(in), KernelArg::array<float>(pattern)});
  const std::vector<float> residual = harness.download(pattern, image.size());
  EXPECT_GT(*std::max_element(residual.begin(), residual.end()), 0.3f);  // the filter keeps it

  context.launch(
      zero_mean_rows_kernel(),
      LaunchGeometry{Dim3{std::uint64_t{height} * reduction_group}, Dim3{reduction_group}, 1},
      {KernelArg::value(width), KernelArg::value(height), KernelArg::array<float>(pattern)});
  context.launch(zero_mean_columns_kernel(), LaunchGeometry{Dim3{width}},
                 {KernelArg::value(width), KernelArg::value(height),
                  KernelArg::array<float>(pattern), KernelArg::array<float>(energy)});
  for (const float v : harness.download(pattern, image.size()))
    ASSERT_NEAR(v, 0.0f, 1e-4f);
}

// Offsets of each row and column of each colour-filter sub-lattice (the colour channels' readouts
// differ) are removed too; odd sides: the parities have different counts.
TEST_P(PrnuKernels, ZeroMeanRowsAndColumnsWorkOnEachColourFilterSubLattice) {
  CAMERA_REQUIRE_DEVICE(device);
  constexpr std::uint32_t width = 201, height = 41;
  RandomStream random(12, {});
  std::vector<float> rows(2 * height), columns(2 * width);  // per line and parity across it
  for (float& v : rows)
    v = static_cast<float>(random.uniform(-1.0, 1.0));
  for (float& v : columns)
    v = static_cast<float>(random.uniform(-1.0, 1.0));
  Image offsets(std::size_t{width} * height);
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x)
      offsets[y * width + x] = rows[2 * y + x % 2] + columns[2 * x + y % 2];
  KernelHarness harness(device);
  const auto pattern = harness.upload(offsets);
  const auto energy = harness.zeros(width + 1);
  auto& context = harness.context();
  context.launch(
      zero_mean_rows_kernel(),
      LaunchGeometry{Dim3{std::uint64_t{height} * reduction_group}, Dim3{reduction_group}, 1},
      {KernelArg::value(width), KernelArg::value(height), KernelArg::array<float>(pattern)});
  context.launch(zero_mean_columns_kernel(), LaunchGeometry{Dim3{width}},
                 {KernelArg::value(width), KernelArg::value(height),
                  KernelArg::array<float>(pattern), KernelArg::array<float>(energy)});
  for (const float v : harness.download(pattern, offsets.size()))
    ASSERT_NEAR(v, 0.0f, 1e-5f);
  for (const float e : harness.download(energy, width))
    ASSERT_NEAR(e, 0.0f, 1e-8f);
}

TEST_P(PrnuKernels, AFlatImageGivesAZeroPatternNotNaN) {
  CAMERA_REQUIRE_DEVICE(device);
  constexpr std::uint32_t width = 32, height = 16;
  const Image image(std::size_t{width} * height, 77.0f);
  KernelHarness harness(device);
  const auto scratch = harness.upload(with_scratch(image, width, height));
  const auto out = harness.upload(Image(item_floats(width, height), 1.0f));
  extract_pattern(harness.context(), ImageShape{width, height}, KernelArg::array<float>(scratch),
                  KernelArg::array<float>(out))
      .wait();
  for (const float v : harness.download(out, image.size()))
    ASSERT_EQ(v, 0.0f);
}

// Photos of two cameras sharing only an 8x8-periodic artefact (JPEG blocking, a model's
// pattern) that zero-mean rows and columns cannot remove (it is no sum of a row and a column
// term): the Wiener filter removes it, so their patterns do not correlate.
TEST_P(PrnuKernels, TheWienerFilterRemovesAPeriodicArtefactCamerasShare) {
  CAMERA_REQUIRE_DEVICE(device);
  // The filter caps each of the artefact's spectral peaks at 81 times the pattern's variance (its
  // widest window), so larger images lose more of it: 384x288 leaves at most ~49 * 81 / pixels.
  constexpr std::uint32_t width = 384, height = 288;
  RandomStream random(21, {});
  double grid_x[8], grid_y[8];
  for (int i = 0; i < 8; ++i) {
    grid_x[i] = random.uniform(-1.0, 1.0);
    grid_y[i] = random.uniform(-1.0, 1.0);
  }
  std::vector<float> filtered[2], unfiltered[2];
  for (int camera = 0; camera < 2; ++camera) {
    Image image(std::size_t{width} * height);
    for (std::uint32_t y = 0; y < height; ++y)
      for (std::uint32_t x = 0; x < width; ++x)
        image[y * width + x] =
            static_cast<float>(120.0 + 3.0 * random.normal() + 4.0 * grid_x[x % 8] * grid_y[y % 8]);
    KernelHarness harness(device);
    const auto scratch = harness.upload(with_scratch(image, width, height));
    const auto out = harness.zeros(item_floats(width, height));
    extract_pattern(harness.context(), ImageShape{width, height}, KernelArg::array<float>(scratch),
                    KernelArg::array<float>(out))
        .wait();
    filtered[camera] = harness.download(out, image.size());
    // The same steps without the Wiener filter: residual, zero-mean rows and columns.
    const auto in = harness.upload(image);
    const auto energy = harness.zeros(width + 1);
    auto& context = harness.context();
    context.launch(residual_kernel(), LaunchGeometry{Dim3{width, height}, Dim3{0, 0, 0}, 2},
                   {KernelArg::value(width), KernelArg::value(height),
                    KernelArg::value(residual_noise_variance), KernelArg::array<float>(in),
                    KernelArg::array<float>(out)});
    context.launch(
        zero_mean_rows_kernel(),
        LaunchGeometry{Dim3{std::uint64_t{height} * reduction_group}, Dim3{reduction_group}, 1},
        {KernelArg::value(width), KernelArg::value(height), KernelArg::array<float>(out)});
    context.launch(zero_mean_columns_kernel(), LaunchGeometry{Dim3{width}},
                   {KernelArg::value(width), KernelArg::value(height), KernelArg::array<float>(out),
                    KernelArg::array<float>(energy)});
    unfiltered[camera] = harness.download(out, image.size());
  }
  const auto ncc = [](const std::vector<float>& a, const std::vector<float>& b) {
    double ab = 0.0, aa = 0.0, bb = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      ab += double{a[i]} * b[i];
      aa += double{a[i]} * a[i];
      bb += double{b[i]} * b[i];
    }
    return ab / std::sqrt(aa * bb);
  };
  const double with_filter = ncc(filtered[0], filtered[1]);
  const double without_filter = ncc(unfiltered[0], unfiltered[1]);
  // Unrelated white patterns of this size: a standard deviation of 1/sqrt(pixels) = 0.003.
  // Zero-mean rows and columns of each sub-lattice remove the artefact's parity components; the
  // rest survives, 10 standard deviations above unrelated patterns.
  EXPECT_GT(without_filter, 0.03) << "the artefact survives zero-mean rows and columns";
  EXPECT_LT(std::abs(with_filter), without_filter / 5)
      << "with " << with_filter << ", without " << without_filter;
}

TEST_P(PrnuKernels, CorrelationPartsSumToTheDotProduct) {
  CAMERA_REQUIRE_DEVICE(device);
  // Fewer values than a group's threads, not a multiple of the parts, several parts of several
  // values a thread, the most parts.
  for (const std::uint32_t count : {50u, 1000u, 100'003u, 9'000'011u}) {
    const std::uint32_t groups = reduction_groups(count);
    RandomStream random(count, {});
    Image left(count), right(count);
    double expected = 0.0;
    for (std::uint32_t i = 0; i < count; ++i) {
      left[i] = static_cast<float>(random.normal());
      right[i] = static_cast<float>(0.5 * left[i] + random.normal());
      expected += double{left[i]} * right[i];
    }
    KernelHarness harness(device);
    const auto a = harness.upload(left), b = harness.upload(right);
    const auto parts = harness.upload(Image(groups, -1.0f));
    correlate(harness.context(), count, KernelArg::array<float>(a), KernelArg::array<float>(b),
              KernelArg::array<float>(parts))
        .wait();
    const std::vector<float> sums = harness.download(parts, groups);
    const double ncc = ncc_from_parts(std::as_bytes(std::span(sums)));
    EXPECT_NEAR(ncc, expected, 1e-5 * count) << count << " values";
  }
}

TEST_P(PrnuKernels, APatternCorrelatesWithItselfAtOne) {
  CAMERA_REQUIRE_DEVICE(device);
  constexpr std::uint32_t width = 64, height = 48;
  KernelHarness harness(device);
  const auto scratch = harness.upload(with_scratch(test_image(width, height, 9), width, height));
  const auto pattern = harness.zeros(item_floats(width, height));
  const std::uint32_t groups = reduction_groups(std::uint64_t{width} * height);
  const auto parts = harness.zeros(groups);
  extract_pattern(harness.context(), ImageShape{width, height}, KernelArg::array<float>(scratch),
                  KernelArg::array<float>(pattern));
  correlate(harness.context(), std::uint64_t{width} * height, KernelArg::array<float>(pattern),
            KernelArg::array<float>(pattern), KernelArg::array<float>(parts))
      .wait();
  const std::vector<float> sums = harness.download(parts, groups);
  EXPECT_NEAR(ncc_from_parts(std::as_bytes(std::span(sums))), 1.0, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Backends, PrnuKernels, ::testing::Values("cpu", "opencl"),
                         [](const auto& backend) { return backend.param; });

}  // namespace
}  // namespace strata::apps::camera
