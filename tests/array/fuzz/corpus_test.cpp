// Runs every file of the fuzzer's corpus through what the fuzzer does with an input, so that the
// normal build (and CI) covers it. Files named valid-* must parse and invalid-* must be rejected;
// any other (what the fuzzer found) must only not fail.
// Usage: annotation_corpus_test CORPUS_DIRECTORY

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "annotation_fuzz_one.hpp"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using strata::array::fuzz::Outcome;
  if (argc != 2 || !fs::is_directory(argv[1])) {
    std::cerr << "usage: annotation_corpus_test CORPUS_DIRECTORY\n";
    return 2;
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(argv[1])) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  int failures = 0;
  int parsed = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    const std::string name = file.filename().string();
    try {
      const Outcome outcome = strata::array::fuzz::fuzz_one(content.str());
      parsed += outcome == Outcome::parsed ? 1 : 0;
      if (name.starts_with("valid-") && outcome != Outcome::parsed) {
        std::cerr << name << ": rejected, but named valid\n";
        ++failures;
      } else if (name.starts_with("invalid-") && outcome != Outcome::rejected) {
        std::cerr << name << ": parsed, but named invalid\n";
        ++failures;
      }
    } catch (const std::exception& error) {
      std::cerr << name << ": " << error.what() << "\n";
      ++failures;
    }
  }
  std::cout << files.size() << " corpus files, " << parsed << " parsed, " << failures
            << " failed\n";
  return files.empty() || failures > 0 ? 1 : 0;
}
