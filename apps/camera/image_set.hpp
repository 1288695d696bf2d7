#pragma once
// A data directory of the camera application: the photos (every .jpg / .jpeg file, in name
// order, which is the order of the items) and the ground truth the generator writes beside
// them (truth.csv: which camera took each photo).

#include <filesystem>
#include <string>
#include <vector>

namespace strata::apps::camera {

inline constexpr const char* truth_file_name = "truth.csv";

// The photos of `dir` in name order; InputError naming `dir` when it is missing, not a
// directory, or holds no JPEG file.
std::vector<std::filesystem::path> list_images(const std::filesystem::path& dir);

// One line of the ground truth.
struct TruthEntry {
  std::string image;   // file name within the directory
  std::string camera;  // the camera's name
};

// Writes `dir`/truth.csv ("image,camera" and one line per photo).
void write_truth(const std::filesystem::path& dir, const std::vector<TruthEntry>& entries);
// Reads `dir`/truth.csv; InputError naming the file (and line) when it is missing or malformed.
std::vector<TruthEntry> read_truth(const std::filesystem::path& dir);

}  // namespace strata::apps::camera
