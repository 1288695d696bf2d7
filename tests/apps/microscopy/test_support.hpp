#pragma once
// Helpers of the microscopy tests: a temporary directory, particle files, and plain
// double-precision references of the registration's scores.

#include <filesystem>
#include <string>
#include <utility>

#include "microscopy/localization.hpp"
#include "strata/device/device.hpp"

namespace strata::apps::microscopy::testing {

// The first OpenCL device (with a program cache of its own in memory), or null with `why` set.
device::Device* opencl_test_device(std::string& why);
// The first CUDA device, or null with the reason in `why`.
device::Device* cuda_test_device(std::string& why);

// A directory removed (with its contents) at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void write_text(const std::filesystem::path& file, const std::string& text);
std::string read_text(const std::filesystem::path& file);

// `particle` with its centroid moved to the origin.
Particle centred(const Particle& particle);
// `particle` rotated by `degrees` about the origin, then shifted by (tx, ty).
Particle moved(const Particle& particle, double degrees, double tx, double ty);

// Sum over i, j of exp(-|R x_i + t - y_j|^2 / (2 (s_i^2 + s_j^2 + scale^2))), no cutoff.
double reference_l2(const Particle& left, const Particle& right, double radians, double tx,
                    double ty, double scale);
// One mean-shift step of the translation: the offsets y_j - R x_i averaged with weights
// exp(-|R x_i + t - y_j|^2 / (2 W_ij)) / W_ij, W_ij = s_i^2 + s_j^2 + scale^2.
std::pair<double, double> reference_translation_step(const Particle& left, const Particle& right,
                                                     double radians, double tx, double ty,
                                                     double scale);
// Sum over i, j of 2 s_i s_j / (s_i^2 + s_j^2) exp(-|R x_i + t - y_j|^2 / (4 (s_i^2 + s_j^2))).
double reference_bhattacharyya(const Particle& left, const Particle& right, double radians,
                               double tx, double ty);

}  // namespace strata::apps::microscopy::testing
