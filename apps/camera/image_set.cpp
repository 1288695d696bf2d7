#include "camera/image_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

#include "strata/allpairs/application.hpp"

namespace strata::apps::camera {
namespace {

bool is_jpeg_name(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".jpg" || extension == ".jpeg";
}

}  // namespace

std::vector<std::filesystem::path> list_images(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    throw allpairs::InputError(dir.string() + ": not a directory of JPEG images");
  std::vector<std::filesystem::path> images;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.is_regular_file() && is_jpeg_name(entry.path())) images.push_back(entry.path());
  }
  if (error) throw allpairs::InputError(dir.string() + ": cannot list it: " + error.message());
  if (images.empty()) throw allpairs::InputError(dir.string() + ": holds no .jpg or .jpeg file");
  std::sort(images.begin(), images.end());
  return images;
}

void write_truth(const std::filesystem::path& dir, const std::vector<TruthEntry>& entries) {
  const std::filesystem::path path = dir / truth_file_name;
  std::ofstream out(path, std::ios::trunc);
  out << "image,camera\n";
  for (const TruthEntry& entry : entries)
    out << entry.image << ',' << entry.camera << '\n';
  out.flush();
  if (!out) throw Error(path.string() + ": cannot write the ground truth");
}

std::vector<TruthEntry> read_truth(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / truth_file_name;
  std::ifstream in(path);
  if (!in) throw allpairs::InputError(path.string() + ": cannot open the ground truth");
  std::vector<TruthEntry> entries;
  std::set<std::string> seen;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      if (line != "image,camera")
        throw allpairs::InputError(fmt::format(
            "{}:1: expected the header \"image,camera\", found \"{}\"", path.string(), line));
      continue;
    }
    if (line.empty()) continue;
    const std::size_t comma = line.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == line.size() ||
        line.find(',', comma + 1) != std::string::npos)
      throw allpairs::InputError(fmt::format("{}:{}: expected \"image,camera\", found \"{}\"",
                                             path.string(), number, line));
    TruthEntry entry{line.substr(0, comma), line.substr(comma + 1)};
    if (!seen.insert(entry.image).second)
      throw allpairs::InputError(
          fmt::format("{}:{}: image {} listed twice", path.string(), number, entry.image));
    entries.push_back(std::move(entry));
  }
  if (number == 0) throw allpairs::InputError(path.string() + ": empty ground truth");
  return entries;
}

}  // namespace strata::apps::camera
