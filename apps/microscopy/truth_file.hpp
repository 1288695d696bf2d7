#pragma once
// The ground truth of a generated data set (truth.json beside the particle files): which
// template the particles come from and each particle's true pose.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "microscopy/site_template.hpp"

namespace strata::apps::microscopy {

inline constexpr std::string_view truth_file_name = "truth.json";

// The pose of one particle: its localizations are the template rotated by `angle_degrees`
// (counter-clockwise) about its centre, then shifted by (tx, ty) nm.
struct ParticlePose {
  std::string file;  // the particle's file name in the data directory
  double angle_degrees = 0;
  double tx = 0;
  double ty = 0;
};

struct GroundTruth {
  Structure structure = Structure::ring;
  int symmetry = 1;  // rotations are known modulo 360 / symmetry degrees
  std::vector<ParticlePose> particles;
};

void write_truth(const std::filesystem::path& file, const GroundTruth& truth);
// A missing or malformed file is an allpairs::InputError naming it.
GroundTruth read_truth(const std::filesystem::path& file);

}  // namespace strata::apps::microscopy
