#include "microscopy/evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <set>

#include "microscopy/angular_synchronization.hpp"
#include "microscopy/microscopy_application.hpp"
#include "microscopy/truth_file.hpp"

namespace strata::apps::microscopy {
namespace {

// The true pose of each item of the application's listing of `dir`.
std::vector<ParticlePose> poses_of_items(const std::filesystem::path& dir,
                                         const GroundTruth& truth) {
  std::map<std::string, const ParticlePose*> by_file;
  for (const ParticlePose& pose : truth.particles)
    by_file[pose.file] = &pose;
  std::vector<ParticlePose> poses;
  for (const auto& file : particle_files(dir)) {
    const auto found = by_file.find(file.filename().string());
    if (found == by_file.end())
      throw allpairs::InputError(fmt::format("{}: no pose for particle {}",
                                             (dir / truth_file_name).string(),
                                             file.filename().string()));
    poses.push_back(*found->second);
  }
  return poses;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index =
      static_cast<std::size_t>(std::round(q * static_cast<double>(values.size() - 1)));
  return values[index];
}

// How far the global rotations are from the truth once their common offset is removed.
struct GlobalResiduals {
  double rms = 0;
  double largest = 0;
  std::size_t within = 0;  // particles within the tolerance
};

// Over the particles marked `present` only.
GlobalResiduals global_residuals(const std::vector<double>& estimated,
                                 const std::vector<ParticlePose>& poses,
                                 const std::vector<bool>& present, double period) {
  const std::size_t n = poses.size();
  std::vector<double> difference(n);
  double sx = 0;
  double sy = 0;
  std::size_t count = 0;
  for (std::size_t a = 0; a < n; ++a) {
    if (!present[a]) continue;
    ++count;
    difference[a] = estimated[a] - poses[a].angle_degrees;
    const double phase = difference[a] * 2 * std::numbers::pi / period;
    sx += std::cos(phase);
    sy += std::sin(phase);
  }
  const double offset = std::atan2(sy, sx) * period / (2 * std::numbers::pi);
  GlobalResiduals result;
  double squares = 0;
  for (std::size_t a = 0; a < n; ++a) {
    if (!present[a]) continue;
    const double residual = std::abs(wrap_degrees(difference[a] - offset, period));
    squares += residual * residual;
    result.largest = std::max(result.largest, residual);
    result.within += residual <= recovered_tolerance_degrees ? 1 : 0;
  }
  result.rms = count > 0 ? std::sqrt(squares / static_cast<double>(count)) : 0.0;
  return result;
}

}  // namespace

Evaluation evaluate_results(const std::filesystem::path& dir,
                            std::span<const allpairs::PairResult<RegistrationResult>> results) {
  const GroundTruth truth = read_truth(dir / truth_file_name);
  const std::vector<ParticlePose> poses = poses_of_items(dir, truth);
  const std::size_t n = poses.size();
  const double period = 360.0 / truth.symmetry;

  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  std::vector<bool> present(n, false);
  std::vector<double> errors;
  std::vector<RelativeRotation> rotations;
  double score_sum = 0;
  for (const auto& result : results) {
    const auto key = std::minmax(result.left, result.right);
    if (result.left == result.right || key.second >= n || !seen.insert(key).second) continue;
    present[result.left] = true;
    present[result.right] = true;
    const double true_rotation =
        poses[result.right].angle_degrees - poses[result.left].angle_degrees;
    errors.push_back(std::abs(wrap_degrees(result.value.angle - true_rotation, period)));
    rotations.push_back(
        {result.left, result.right, result.value.angle, std::max(0.0f, result.value.score)});
    score_sum += result.value.score;
  }
  // Particles without any result were skipped (unreadable files): they are left out.
  const auto evaluated = static_cast<std::size_t>(std::count(present.begin(), present.end(), true));
  const std::size_t expected = evaluated > 0 ? evaluated * (evaluated - 1) / 2 : 0;
  const auto within = static_cast<std::size_t>(std::count_if(
      errors.begin(), errors.end(), [](double e) { return e <= recovered_tolerance_degrees; }));

  Evaluation evaluation;
  evaluation.recovered =
      expected > 0 &&
      static_cast<double>(within) >= recovered_pair_fraction * static_cast<double>(expected);
  std::string text =
      fmt::format("microscopy: {} particles ({} template, rotations modulo {:g} deg)", n,
                  to_string(truth.structure), period);
  if (evaluated < n)
    text += fmt::format("; {} of the {} particles have no results (skipped) and are left out",
                        n - evaluated, n);
  text += fmt::format(
      "; {} of {} pairs registered; {} of {} pairs ({:.1f}%) within {:g} deg of the true "
      "relative rotation",
      errors.size(), expected, within, expected,
      expected > 0 ? 100.0 * static_cast<double>(within) / static_cast<double>(expected) : 0.0,
      recovered_tolerance_degrees);
  if (!errors.empty()) {
    text += fmt::format(
        "; error median {:.2f} deg, 95th percentile {:.2f} deg, max {:.1f} deg; mean score {:.3f}",
        quantile(errors, 0.5), quantile(errors, 0.95), quantile(errors, 1.0),
        score_sum / static_cast<double>(errors.size()));
    // The fusion's view: one rotation per particle from all pairs, misregistrations rejected.
    const GlobalResiduals global =
        global_residuals(synchronize_rotations_robustly(n, rotations, truth.symmetry,
                                                        2 * recovered_tolerance_degrees),
                         poses, present, period);
    text += fmt::format(
        "; global rotations from all pairs: {} of {} particles within {:g} deg, residual rms "
        "{:.2f} deg, max {:.2f} deg",
        global.within, evaluated, recovered_tolerance_degrees, global.rms, global.largest);
  }
  text += fmt::format(
      "; truth {} (criterion: at least {:g}% of the pairs of the evaluated particles within {:g} "
      "deg)",
      evaluation.recovered ? "recovered" : "NOT recovered", 100 * recovered_pair_fraction,
      recovered_tolerance_degrees);
  evaluation.summary = std::move(text);
  return evaluation;
}

Evaluation evaluate(const std::filesystem::path& dir, const std::filesystem::path& results) {
  const auto records = allpairs::read_results<RegistrationResult>(results);
  return evaluate_results(dir, records);
}

}  // namespace strata::apps::microscopy
