#include "microscopy/fusion.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "microscopy/angular_synchronization.hpp"
#include "strata/base/error.hpp"

namespace strata::apps::microscopy {
namespace {

constexpr double radians_per_degree = std::numbers::pi / 180.0;

struct Vec2 {
  double x = 0;
  double y = 0;
};

Vec2 rotate(double degrees, Vec2 v) {
  const double c = std::cos(degrees * radians_per_degree);
  const double s = std::sin(degrees * radians_per_degree);
  return {c * v.x - s * v.y, s * v.x + c * v.y};
}

// One equation S s_i - s_j = b of the shifts (S a rotation by `symmetry_degrees`).
struct ShiftEquation {
  std::uint32_t i = 0;
  std::uint32_t j = 0;
  double symmetry_degrees = 0;
  Vec2 b;
};

// Least squares over the equations with a tiny ridge (it fixes the common offset when nothing
// else does): the normal equations, solved by Cholesky.
std::vector<Vec2> solve_shifts(std::size_t n, std::span<const ShiftEquation> equations) {
  const std::size_t m = 2 * n;
  std::vector<double> a(m * m, 0.0);
  std::vector<double> rhs(m, 0.0);
  for (std::size_t k = 0; k < m; ++k)
    a[k * m + k] = 1e-6;
  for (const ShiftEquation& e : equations) {
    const double c = std::cos(e.symmetry_degrees * radians_per_degree);
    const double s = std::sin(e.symmetry_degrees * radians_per_degree);
    // Rows: x: c s_ix - s s_iy - s_jx = b.x; y: s s_ix + c s_iy - s_jy = b.y.
    const std::array<std::array<std::pair<std::size_t, double>, 3>, 2> rows{
        {{{{2 * e.i, c}, {2 * e.i + 1, -s}, {2 * e.j, -1.0}}},
         {{{2 * e.i, s}, {2 * e.i + 1, c}, {2 * e.j + 1, -1.0}}}}};
    const std::array<double, 2> values{e.b.x, e.b.y};
    for (std::size_t r = 0; r < 2; ++r) {
      for (const auto& [p, vp] : rows[r]) {
        rhs[p] += vp * values[r];
        for (const auto& [q, vq] : rows[r])
          a[p * m + q] += vp * vq;
      }
    }
  }
  // Cholesky: a = L L^T, L in the lower triangle.
  for (std::size_t j = 0; j < m; ++j) {
    double d = a[j * m + j];
    for (std::size_t k = 0; k < j; ++k)
      d -= a[j * m + k] * a[j * m + k];
    d = std::sqrt(std::max(d, 1e-12));
    a[j * m + j] = d;
    for (std::size_t i = j + 1; i < m; ++i) {
      double v = a[i * m + j];
      for (std::size_t k = 0; k < j; ++k)
        v -= a[i * m + k] * a[j * m + k];
      a[i * m + j] = v / d;
    }
  }
  std::vector<double> y(m);
  for (std::size_t i = 0; i < m; ++i) {
    double v = rhs[i];
    for (std::size_t k = 0; k < i; ++k)
      v -= a[i * m + k] * y[k];
    y[i] = v / a[i * m + i];
  }
  for (std::size_t i = m; i-- > 0;) {
    double v = y[i];
    for (std::size_t k = i + 1; k < m; ++k)
      v -= a[k * m + i] * y[k];
    y[i] = v / a[i * m + i];
  }
  std::vector<Vec2> shifts(n);
  for (std::size_t i = 0; i < n; ++i)
    shifts[i] = {y[2 * i], y[2 * i + 1]};
  return shifts;
}

double residual(const ShiftEquation& e, const std::vector<Vec2>& s) {
  const Vec2 r = rotate(e.symmetry_degrees, s[e.i]);
  return std::hypot(r.x - s[e.j].x - e.b.x, r.y - s[e.j].y - e.b.y);
}

double pearson(std::span<const float> a, std::span<const float> b) {
  double sa = 0, sb = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    sa += a[k];
    sb += b[k];
  }
  const double n = static_cast<double>(a.size());
  const double ma = sa / n, mb = sb / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double da = a[k] - ma, db = b[k] - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

void add_gaussian(Rendering& r, double x, double y, double sigma, double weight) {
  const double half = r.size * r.pixel / 2;
  const double px = (x + half) / r.pixel - 0.5;  // pixel coordinates of the centre
  const double py = (half - y) / r.pixel - 0.5;
  const double reach = 3 * sigma / r.pixel + 1;
  const auto lo_x = static_cast<long>(std::floor(px - reach)),
             hi_x = static_cast<long>(std::ceil(px + reach));
  const auto lo_y = static_cast<long>(std::floor(py - reach)),
             hi_y = static_cast<long>(std::ceil(py + reach));
  const double inv = 1.0 / (2 * sigma * sigma / (r.pixel * r.pixel));
  const double norm = weight * r.pixel * r.pixel / (2 * std::numbers::pi * sigma * sigma);
  const long size = r.size;
  for (long v = std::max(0L, lo_y); v <= std::min(size - 1, hi_y); ++v)
    for (long u = std::max(0L, lo_x); u <= std::min(size - 1, hi_x); ++u) {
      const double dx = static_cast<double>(u) - px, dy = static_cast<double>(v) - py;
      r.values[static_cast<std::size_t>(v * size + u)] +=
          static_cast<float>(norm * std::exp(-(dx * dx + dy * dy) * inv));
    }
}

}  // namespace

Fusion fuse_particles(std::span<const Particle> particles,
                      std::span<const allpairs::PairResult<RegistrationResult>> results,
                      int symmetry, double inlier_degrees) {
  if (symmetry < 1) throw Error("microscopy fusion: the symmetry must be at least 1");
  const std::size_t n = particles.size();
  const double period = 360.0 / symmetry;
  Fusion fusion;
  fusion.present.assign(n, false);
  std::vector<RelativeRotation> rotations;
  for (const auto& result : results) {
    if (result.left >= n || result.right >= n || result.left == result.right)
      throw Error("microscopy fusion: a result names a particle beyond the " + std::to_string(n));
    fusion.present[result.left] = fusion.present[result.right] = true;
    rotations.push_back({result.left, result.right, result.value.angle,
                         std::max(0.0, static_cast<double>(result.value.score))});
  }
  fusion.pairs = results.size();
  // theta[right] - theta[left] ~ angle: particle i is brought into the frame by -theta[i].
  const std::vector<double> theta =
      synchronize_rotations_robustly(n, rotations, symmetry, 2 * inlier_degrees);
  std::vector<ShiftEquation> equations;
  for (const auto& result : results) {
    const double off = result.value.angle - (theta[result.right] - theta[result.left]);
    const double k = std::round(off / period);
    if (std::abs(off - k * period) > inlier_degrees) continue;
    const Vec2 b = rotate(-theta[result.right], {result.value.tx, result.value.ty});
    equations.push_back(
        {result.left, result.right, symmetry == 1 ? 0.0 : std::fmod(k * period, 360.0), b});
  }
  std::vector<Vec2> shifts = solve_shifts(n, equations);
  // Misregistered translations are outliers: drop those far off the first solution, solve again.
  if (!equations.empty()) {
    std::vector<double> errors;
    for (const ShiftEquation& e : equations)
      errors.push_back(residual(e, shifts));
    std::vector<double> sorted = errors;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const double limit = std::max(3 * sorted[sorted.size() / 2], 2.0);
    std::vector<ShiftEquation> kept;
    for (std::size_t k = 0; k < equations.size(); ++k)
      if (errors[k] <= limit) kept.push_back(equations[k]);
    equations = std::move(kept);
    shifts = solve_shifts(n, equations);
  }
  double squares = 0;
  for (const ShiftEquation& e : equations)
    squares += residual(e, shifts) * residual(e, shifts);
  fusion.pairs_used = equations.size();
  fusion.shift_residual_rms =
      equations.empty() ? 0.0 : std::sqrt(squares / static_cast<double>(equations.size()));

  fusion.rotation_degrees.resize(n);
  fusion.shift.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    fusion.rotation_degrees[i] = -theta[i];
    fusion.shift[i] = {shifts[i].x, shifts[i].y};
    if (!fusion.present[i] || particles[i].empty()) continue;
    double cx = 0, cy = 0;
    for (const Localization& l : particles[i]) {
      cx += l.x;
      cy += l.y;
    }
    cx /= static_cast<double>(particles[i].size());
    cy /= static_cast<double>(particles[i].size());
    for (const Localization& l : particles[i]) {
      const Vec2 z = rotate(-theta[i], {l.x - cx, l.y - cy});
      fusion.localizations.push_back({static_cast<float>(z.x + shifts[i].x),
                                      static_cast<float>(z.y + shifts[i].y), l.sigma,
                                      static_cast<std::uint32_t>(i)});
    }
  }
  return fusion;
}

std::uint32_t rendering_size(std::span<const FusedLocalization> localizations, double pixel) {
  std::vector<double> radii;
  double sigma = 0;
  for (const FusedLocalization& l : localizations) {
    radii.push_back(std::max(std::abs(l.x), std::abs(l.y)));
    sigma = std::max(sigma, static_cast<double>(l.sigma));
  }
  if (radii.empty()) return 16;
  const auto at = static_cast<std::size_t>(0.98 * static_cast<double>(radii.size() - 1));
  std::nth_element(radii.begin(), radii.begin() + static_cast<std::ptrdiff_t>(at), radii.end());
  const double half = radii[at] + 3 * std::min(sigma, 10.0) + 5;
  return std::clamp(static_cast<std::uint32_t>(std::ceil(2 * half / pixel)), 16u, 2048u);
}

Rendering render_localizations(std::span<const FusedLocalization> localizations, std::uint32_t size,
                               double pixel) {
  Rendering r{size, pixel, std::vector<float>(std::size_t{size} * size, 0.0f)};
  for (const FusedLocalization& l : localizations)
    add_gaussian(r, l.x, l.y, std::max(static_cast<double>(l.sigma), 0.5 * pixel), 1.0);
  return r;
}

TemplateMatch match_template(const Rendering& rendering, const SiteTemplate& structure,
                             double sigma) {
  // The rendering's centre of intensity: where the template starts.
  double sum = 0, mx = 0, my = 0;
  const double half = rendering.size * rendering.pixel / 2;
  for (std::uint32_t v = 0; v < rendering.size; ++v)
    for (std::uint32_t u = 0; u < rendering.size; ++u) {
      const double w = rendering.values[std::size_t{v} * rendering.size + u];
      sum += w;
      mx += w * ((u + 0.5) * rendering.pixel - half);
      my += w * (half - (v + 0.5) * rendering.pixel);
    }
  if (sum > 0) {
    mx /= sum;
    my /= sum;
  }
  const auto score = [&](double degrees, double x, double y) {
    Rendering t{rendering.size, rendering.pixel, std::vector<float>(rendering.values.size(), 0)};
    for (const Site& site : structure.sites) {
      const Vec2 p = rotate(degrees, {site.x, site.y});
      add_gaussian(t, p.x + x, p.y + y, sigma, 1.0);
    }
    return pearson(rendering.values, t.values);
  };
  const double period = 360.0 / std::max(structure.symmetry, 1);
  TemplateMatch best{-2, 0, mx, my};
  const auto consider = [&](double degrees, double x, double y) {
    const double c = score(degrees, x, y);
    if (c > best.correlation) best = {c, degrees, x, y};
  };
  for (double a = 0; a < period; a += 1.0)
    consider(a, mx, my);
  const TemplateMatch coarse = best;
  for (double dx = -5; dx <= 5; dx += 0.5)
    for (double dy = -5; dy <= 5; dy += 0.5)
      consider(coarse.angle_degrees, coarse.shift_x + dx, coarse.shift_y + dy);
  const TemplateMatch shifted = best;
  for (double da = -1; da <= 1; da += 0.25)
    consider(shifted.angle_degrees + da, shifted.shift_x, shifted.shift_y);
  return best;
}

}  // namespace strata::apps::microscopy
