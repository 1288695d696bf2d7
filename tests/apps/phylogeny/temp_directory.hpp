#pragma once
// A fresh directory for one test, removed with its contents at the end.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace strata::apps::phylogeny::testing {

class TempDirectory {
 public:
  TempDirectory() {
    static std::atomic<int> counter{0};
    path_ =
        std::filesystem::temp_directory_path() /
        ("strata-phylogeny-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace strata::apps::phylogeny::testing
