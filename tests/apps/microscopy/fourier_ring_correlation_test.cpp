// The Fourier ring correlation against what it must show: identical images correlate at every
// frequency, independent noise at none, and two samplings of one blurred structure down to a
// resolution that grows with the blur.
#include "microscopy/fourier_ring_correlation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "strata/base/error.hpp"

namespace strata::apps::microscopy {
namespace {

constexpr std::uint32_t size = 128;
constexpr double pixel = 1.0;  // nm

// `count` points of a ring of radius 30 nm with 16 sites, each point scattered by `blur` nm,
// binned into a size x size histogram.
std::vector<float> sample_ring(std::mt19937_64& random, std::size_t count, double blur) {
  std::vector<float> image(std::size_t{size} * size, 0.0f);
  std::uniform_int_distribution<int> site(0, 15);
  std::normal_distribution<double> scatter(0.0, blur);
  for (std::size_t i = 0; i < count; ++i) {
    const double angle = site(random) * 2 * 3.14159265358979 / 16;
    const double x = 30 * std::cos(angle) + scatter(random) + size / 2.0;
    const double y = 30 * std::sin(angle) + scatter(random) + size / 2.0;
    const auto u = static_cast<long>(std::floor(x)), v = static_cast<long>(std::floor(y));
    if (u >= 0 && v >= 0 && u < long{size} && v < long{size})
      image[static_cast<std::size_t>(v) * size + static_cast<std::size_t>(u)] += 1.0f;
  }
  return image;
}

TEST(FourierRingCorrelation, IdenticalImagesCorrelateAtEveryFrequency) {
  std::mt19937_64 random(1);
  const std::vector<float> image = sample_ring(random, 2000, 1.0);
  const FrcCurve curve = fourier_ring_correlation(image, image, size, pixel);
  ASSERT_EQ(curve.correlation.size(), size / 2);
  for (std::size_t r = 0; r < curve.correlation.size(); ++r) {
    EXPECT_NEAR(curve.correlation[r], 1.0, 1e-9) << "ring " << r + 1;
    EXPECT_DOUBLE_EQ(curve.frequency[r], static_cast<double>(r + 1) / (size * pixel));
  }
  EXPECT_FALSE(frc_resolution(curve).has_value());
}

TEST(FourierRingCorrelation, IndependentNoiseCorrelatesAtNoFrequency) {
  std::mt19937_64 random(2);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  std::vector<float> a(std::size_t{size} * size), b(a.size());
  for (float& v : a)
    v = value(random);
  for (float& v : b)
    v = value(random);
  const FrcCurve curve = fourier_ring_correlation(a, b, size, pixel);
  double mean = 0;
  for (double c : curve.correlation)
    mean += std::abs(c) / static_cast<double>(curve.correlation.size());
  EXPECT_LT(mean, 0.1);
  const auto resolution = frc_resolution(curve);
  ASSERT_TRUE(resolution.has_value());
  EXPECT_GT(*resolution, size * pixel / 8) << "noise falls below 1/7 within the first rings";
}

TEST(FourierRingCorrelation, ResolutionOfTwoSamplingsGrowsWithTheirBlur) {
  std::mt19937_64 random(3);
  std::vector<double> resolutions;
  for (double blur : {1.5, 3.0, 6.0}) {
    const auto a = sample_ring(random, 4000, blur);
    const auto b = sample_ring(random, 4000, blur);
    const auto resolution = frc_resolution(fourier_ring_correlation(a, b, size, pixel));
    ASSERT_TRUE(resolution.has_value()) << "blur " << blur;
    // Finer than the ring, coarser than the blur itself.
    EXPECT_GT(*resolution, blur) << "blur " << blur;
    EXPECT_LT(*resolution, 30.0) << "blur " << blur;
    resolutions.push_back(*resolution);
  }
  EXPECT_LT(resolutions[0], resolutions[1]);
  EXPECT_LT(resolutions[1], resolutions[2]);
}

TEST(FourierRingCorrelation, ImagesOfTheWrongSizeAreRefused) {
  const std::vector<float> image(std::size_t{size} * size, 1.0f);
  EXPECT_THROW(fourier_ring_correlation(image, std::vector<float>(10), size, pixel), Error);
  EXPECT_THROW(fourier_ring_correlation(image, image, size, 0.0), Error);
}

// The halves of a fused particle are its even and odd particles: localizations of one particle
// alone correlate with nothing.
TEST(FourierRingCorrelation, FusedHalvesAreSplitByParticle) {
  std::mt19937_64 random(4);
  std::normal_distribution<double> scatter(0.0, 2.0);
  std::vector<FusedLocalization> one_particle;
  for (int i = 0; i < 2000; ++i)
    one_particle.push_back(
        {static_cast<float>(30 + scatter(random)), static_cast<float>(scatter(random)), 2.0f, 0});
  const FusedResolution alone = fused_particle_resolution(one_particle, 1.0);
  for (double c : alone.curve.correlation)
    EXPECT_EQ(c, 0.0) << "the odd half is empty";

  std::vector<FusedLocalization> two = one_particle;
  for (FusedLocalization& l : two)
    l.particle = static_cast<std::uint32_t>(&l - two.data()) % 2;
  const FusedResolution both = fused_particle_resolution(two, 1.0);
  ASSERT_TRUE(both.resolution_nm.has_value());
  EXPECT_GT(*both.resolution_nm, 2.0);
  EXPECT_LT(*both.resolution_nm, 20.0);
}

}  // namespace
}  // namespace strata::apps::microscopy
