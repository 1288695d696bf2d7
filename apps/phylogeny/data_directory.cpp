#include "phylogeny/data_directory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <string_view>

#include "strata/allpairs/application.hpp"

namespace strata::apps::phylogeny {
namespace {

constexpr std::array<std::string_view, 3> proteome_extensions = {".faa.gz", ".fasta.gz", ".fa.gz"};

// The proteome extension `name` ends with, or empty.
std::string_view proteome_extension(std::string_view name) {
  for (const std::string_view extension : proteome_extensions)
    if (name.size() > extension.size() && name.ends_with(extension)) return extension;
  return {};
}

}  // namespace

std::vector<std::filesystem::path> proteome_files(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    throw allpairs::InputError(fmt::format("{}: not a directory", dir.string()));
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (!entry.is_regular_file()) continue;
    if (!proteome_extension(entry.path().filename().string()).empty())
      files.push_back(entry.path());
  }
  if (error)
    throw allpairs::InputError(fmt::format("{}: cannot list: {}", dir.string(), error.message()));
  if (files.empty())
    throw allpairs::InputError(
        fmt::format("{}: no proteome files (*.faa.gz, *.fasta.gz or *.fa.gz)", dir.string()));
  std::sort(files.begin(), files.end());
  return files;
}

std::string species_of(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  return name.substr(0, name.size() - proteome_extension(name).size());
}

std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw allpairs::InputError(fmt::format("{}: cannot open", file.string()));
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) throw allpairs::InputError(fmt::format("{}: read failed", file.string()));
  return std::move(contents).str();
}

}  // namespace strata::apps::phylogeny
