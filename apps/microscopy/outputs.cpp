// write_outputs(): the answer of a run for the microscopist — the fused super-particle as
// localizations (CSV) and as a rendered super-resolution image (PNG).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "microscopy/fourier_ring_correlation.hpp"
#include "microscopy/fusion.hpp"
#include "microscopy/microscopy_app.hpp"
#include "microscopy/microscopy_application.hpp"
#include "microscopy/particle_json.hpp"
#include "microscopy/truth_file.hpp"

namespace strata::apps::microscopy {
namespace {

constexpr double render_pixel_nm = 1.0;

Particle read_particle(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw allpairs::InputError(fmt::format("{}: cannot read", file.string()));
  return parse_particle(text.str(), file);
}

double median_sigma(std::span<const FusedLocalization> localizations) {
  std::vector<float> sigmas;
  for (const FusedLocalization& l : localizations)
    sigmas.push_back(l.sigma);
  if (sigmas.empty()) return 1.0;
  std::nth_element(sigmas.begin(), sigmas.begin() + static_cast<std::ptrdiff_t>(sigmas.size() / 2),
                   sigmas.end());
  return sigmas[sigmas.size() / 2];
}

}  // namespace

double template_sigma(std::span<const FusedLocalization> localizations) {
  // A site's localizations scatter by their sigma, and the rendering widens each by it again.
  return std::sqrt(2.0) * median_sigma(localizations);
}

Image8 render_image(const Rendering& rendering) {
  std::vector<float> sorted = rendering.values;
  const auto at = static_cast<std::size_t>(0.999 * static_cast<double>(sorted.size() - 1));
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(at), sorted.end());
  const double top = std::max(sorted[at], 1e-12f);
  Image8 image(rendering.size, rendering.size, 3);
  for (std::uint32_t v = 0; v < rendering.size; ++v)
    for (std::uint32_t u = 0; u < rendering.size; ++u)
      image.set(u, v, viridis(rendering.values[std::size_t{v} * rendering.size + u] / top));
  return image;
}

Outputs write_outputs(const std::filesystem::path& dir, const std::filesystem::path& results) {
  const std::vector<std::filesystem::path> files = particle_files(dir);
  const auto records = allpairs::read_results<RegistrationResult>(results);
  std::vector<bool> present(files.size(), false);
  for (const auto& record : records) {
    if (record.left < files.size()) present[record.left] = true;
    if (record.right < files.size()) present[record.right] = true;
  }
  std::vector<Particle> particles(files.size());
  for (std::size_t i = 0; i < files.size(); ++i)
    if (present[i]) particles[i] = read_particle(files[i]);

  // The symmetry is the truth's where there is one; real data are fused modulo 360 degrees.
  std::optional<GroundTruth> truth;
  if (std::filesystem::exists(dir / truth_file_name)) truth = read_truth(dir / truth_file_name);
  const int symmetry = truth ? truth->symmetry : 1;
  const Fusion fusion = fuse_particles(particles, records, symmetry);

  Outputs outputs;
  std::string text = "x,y,sigma,particle\n";
  for (const FusedLocalization& l : fusion.localizations)
    text += fmt::format("{:.3f},{:.3f},{:.3f},{}\n", l.x, l.y, l.sigma,
                        files[l.particle].filename().string());
  const auto csv = output_path(results, ".fused.csv");
  write_text_file(csv, text);
  outputs.files.push_back(
      {csv, fmt::format("the fused super-particle: {} localizations in one frame (CSV: "
                        "x,y,sigma,particle; nm)",
                        fusion.localizations.size())});

  const std::uint32_t size = rendering_size(fusion.localizations, render_pixel_nm);
  const Rendering rendering = render_localizations(fusion.localizations, size, render_pixel_nm);
  const auto png = output_path(results, ".fused.png");
  write_png(png, render_image(rendering));
  outputs.files.push_back(
      {png, fmt::format("the fused super-particle rendered ({}x{} pixels of {:g} nm, each "
                        "localization a Gaussian of its sigma)",
                        size, size, render_pixel_nm)});

  const FusedResolution frc = fused_particle_resolution(fusion.localizations, render_pixel_nm);
  std::string frc_text = "frequency_per_nm,frc\n";
  for (std::size_t r = 0; r < frc.curve.frequency.size(); ++r)
    frc_text += fmt::format("{:.6f},{:.6f}\n", frc.curve.frequency[r], frc.curve.correlation[r]);
  const auto frc_csv = output_path(results, ".frc.csv");
  write_text_file(frc_csv, frc_text);
  const std::string resolution =
      frc.resolution_nm ? fmt::format("{:.1f} nm", *frc.resolution_nm)
                        : fmt::format("finer than the {:g} nm pixels show", 2 * render_pixel_nm);
  outputs.files.push_back(
      {frc_csv, fmt::format("the Fourier ring correlation of the fused particle's halves (even "
                            "and odd particles; CSV: frequency_per_nm,frc): resolution {}",
                            resolution)});

  const auto used =
      static_cast<std::size_t>(std::count(fusion.present.begin(), fusion.present.end(), true));
  outputs.summary = fmt::format(
      "microscopy: {} particles fused (rotations modulo {:g} deg{}); {} of {} pairs consistent "
      "with the global rotations and shifts, shift residual rms {:.2f} nm",
      used, 360.0 / symmetry, truth ? ", the truth's symmetry" : ", no truth: no symmetry assumed",
      fusion.pairs_used, fusion.pairs, fusion.shift_residual_rms);
  outputs.summary +=
      fmt::format("; Fourier ring correlation resolution {} (1/7 threshold)", resolution);
  if (truth) {
    const TemplateMatch match = match_template(rendering, make_template(truth->structure),
                                               template_sigma(fusion.localizations));
    outputs.summary += fmt::format(
        "; correlation of the fused image with the {} template's rendering {:.3f} (template "
        "rotated {:.2f} deg, shifted {:.1f}, {:.1f} nm)",
        to_string(truth->structure), match.correlation, match.angle_degrees, match.shift_x,
        match.shift_y);
  }
  return outputs;
}

}  // namespace strata::apps::microscopy
