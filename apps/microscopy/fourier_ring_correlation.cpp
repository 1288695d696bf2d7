#include "microscopy/fourier_ring_correlation.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <mutex>

#include "strata/base/error.hpp"

namespace strata::apps::microscopy {
namespace {

// FFTW's planner is not thread-safe; executing a plan is.
std::mutex fftw_planner;

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};

// The half spectrum (size rows of size / 2 + 1) of a real image.
std::vector<std::complex<double>> half_spectrum(std::span<const float> image, std::uint32_t size) {
  const std::size_t n = size;
  const std::size_t columns = n / 2 + 1;
  std::unique_ptr<double, FftwFree> in(static_cast<double*>(fftw_malloc(sizeof(double) * n * n)));
  std::unique_ptr<fftw_complex, FftwFree> out(
      static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * n * columns)));
  if (!in || !out) throw Error("Fourier ring correlation: out of memory for the transforms");
  fftw_plan plan;
  {
    std::lock_guard guard(fftw_planner);
    plan = fftw_plan_dft_r2c_2d(static_cast<int>(n), static_cast<int>(n), in.get(), out.get(),
                                FFTW_ESTIMATE);
  }
  if (plan == nullptr) throw Error("Fourier ring correlation: FFTW made no plan");
  std::copy(image.begin(), image.end(), in.get());
  fftw_execute(plan);
  {
    std::lock_guard guard(fftw_planner);
    fftw_destroy_plan(plan);
  }
  std::vector<std::complex<double>> spectrum(n * columns);
  for (std::size_t i = 0; i < spectrum.size(); ++i)
    spectrum[i] = {out.get()[i][0], out.get()[i][1]};
  return spectrum;
}

}  // namespace

FrcCurve fourier_ring_correlation(std::span<const float> first, std::span<const float> second,
                                  std::uint32_t size, double pixel) {
  const std::size_t n = size;
  if (size < 4 || first.size() != n * n || second.size() != n * n || !(pixel > 0))
    throw Error("Fourier ring correlation: two images of size x size pixels (size >= 4) expected");
  const auto a = half_spectrum(first, size);
  const auto b = half_spectrum(second, size);
  const std::size_t columns = n / 2 + 1;
  const std::size_t rings = n / 2;
  std::vector<double> cross(rings + 1, 0.0), energy_a(rings + 1, 0.0), energy_b(rings + 1, 0.0);
  for (std::size_t row = 0; row < n; ++row) {
    const double fy = row <= n / 2 ? static_cast<double>(row) : static_cast<double>(row) - n;
    for (std::size_t column = 0; column < columns; ++column) {
      const auto ring = static_cast<std::size_t>(std::lround(std::hypot(fy, double(column))));
      if (ring > rings) continue;
      // The half spectrum stands for both halves except where a column is its own mirror.
      const double weight = (column == 0 || (n % 2 == 0 && column == n / 2)) ? 1.0 : 2.0;
      const std::complex<double> x = a[row * columns + column];
      const std::complex<double> y = b[row * columns + column];
      cross[ring] += weight * (x * std::conj(y)).real();
      energy_a[ring] += weight * std::norm(x);
      energy_b[ring] += weight * std::norm(y);
    }
  }
  FrcCurve curve;
  for (std::size_t ring = 1; ring <= rings; ++ring) {
    curve.frequency.push_back(static_cast<double>(ring) / (static_cast<double>(n) * pixel));
    const double norm = std::sqrt(energy_a[ring] * energy_b[ring]);
    curve.correlation.push_back(norm > 0 ? cross[ring] / norm : 0.0);
  }
  return curve;
}

std::optional<double> frc_resolution(const FrcCurve& curve, double threshold,
                                     std::size_t smoothing) {
  const std::size_t rings = curve.correlation.size();
  const std::size_t half = smoothing / 2;
  const auto smoothed = [&](std::size_t i) {
    const std::size_t lo = i >= half ? i - half : 0;
    const std::size_t hi = std::min(rings - 1, i + half);
    double sum = 0;
    for (std::size_t k = lo; k <= hi; ++k)
      sum += curve.correlation[k];
    return sum / static_cast<double>(hi - lo + 1);
  };
  double previous = 1.0;
  double previous_frequency = 0.0;
  for (std::size_t i = 0; i < rings; ++i) {
    const double value = smoothed(i);
    if (value < threshold) {
      // Linear interpolation between the last ring above the threshold and this one.
      const double t = (previous - threshold) / (previous - value);
      const double frequency = previous_frequency + t * (curve.frequency[i] - previous_frequency);
      return 1.0 / frequency;
    }
    previous = value;
    previous_frequency = curve.frequency[i];
  }
  return std::nullopt;
}

FusedResolution fused_particle_resolution(std::span<const FusedLocalization> localizations,
                                          double pixel) {
  const std::uint32_t size = rendering_size(localizations, pixel);
  const std::size_t n = size;
  std::vector<float> halves[2] = {std::vector<float>(n * n, 0.0f), std::vector<float>(n * n, 0.0f)};
  const double extent = size * pixel / 2;
  for (const FusedLocalization& l : localizations) {
    const auto u = static_cast<long>(std::floor((l.x + extent) / pixel));
    const auto v = static_cast<long>(std::floor((extent - l.y) / pixel));
    if (u < 0 || v < 0 || u >= static_cast<long>(n) || v >= static_cast<long>(n)) continue;
    halves[l.particle % 2][static_cast<std::size_t>(v) * n + static_cast<std::size_t>(u)] += 1.0f;
  }
  FusedResolution result;
  result.pixel = pixel;
  result.curve = fourier_ring_correlation(halves[0], halves[1], size, pixel);
  result.resolution_nm = frc_resolution(result.curve);
  return result;
}

}  // namespace strata::apps::microscopy
