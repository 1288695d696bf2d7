#include "strata/device/program_cache.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace strata::device {
namespace {

class ProgramCacheTest : public ::testing::Test {
 protected:
  std::filesystem::path directory = std::filesystem::temp_directory_path() /
                                    ("strata-program-cache-" + std::to_string(::getpid()));
  int compiles = 0;
  std::function<std::string()> compiler = [this] {
    ++compiles;
    return std::string("BINARY-") + std::to_string(compiles);
  };
  void TearDown() override { std::filesystem::remove_all(directory); }
  std::string get(ProgramCache& cache, std::string_view source, bool* cached) {
    return cache.get_or_compile("opencl", "pocl cpu", source, "-O2", compiler, cached);
  }
};

TEST_F(ProgramCacheTest, SecondRequestHitsMemory) {
  ProgramCache cache(directory.string());
  bool cached = true;
  EXPECT_EQ(get(cache, "kernel A", &cached), "BINARY-1");
  EXPECT_FALSE(cached);
  EXPECT_EQ(get(cache, "kernel A", &cached), "BINARY-1");
  EXPECT_TRUE(cached);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(cache.stats().memory_hits, 1u);
}

TEST_F(ProgramCacheTest, DifferentSourceOptionsOrDeviceCompileAgain) {
  ProgramCache cache(directory.string());
  get(cache, "kernel A", nullptr);
  get(cache, "kernel B", nullptr);
  cache.get_or_compile("opencl", "pocl cpu", "kernel A", "-O0", compiler, nullptr);
  cache.get_or_compile("opencl", "other gpu", "kernel A", "-O2", compiler, nullptr);
  cache.get_or_compile("cuda", "pocl cpu", "kernel A", "-O2", compiler, nullptr);
  EXPECT_EQ(compiles, 5);
}

TEST_F(ProgramCacheTest, ANewProcessFindsTheProgramOnDisk) {
  {
    ProgramCache first(directory.string());
    get(first, "kernel A", nullptr);
  }
  ProgramCache second(directory.string());  // as a second run would
  bool cached = false;
  EXPECT_EQ(get(second, "kernel A", &cached), "BINARY-1");
  EXPECT_TRUE(cached);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(second.stats().disk_hits, 1u);
}

TEST_F(ProgramCacheTest, ACorruptedFileIsDetectedAndRecompiled) {
  {
    ProgramCache first(directory.string());
    get(first, "kernel A", nullptr);
  }
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    std::fstream file(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-1, std::ios::end);
    file.put('X');
  }
  ProgramCache second(directory.string());
  bool cached = true;
  EXPECT_EQ(get(second, "kernel A", &cached), "BINARY-2");
  EXPECT_FALSE(cached);
  EXPECT_EQ(second.stats().corrupt_files, 1u);
  ProgramCache third(directory.string());  // the rewritten entry is good again
  EXPECT_EQ(get(third, "kernel A", &cached), "BINARY-2");
  EXPECT_TRUE(cached);
}

TEST_F(ProgramCacheTest, MemoryOnlyCacheWritesNothing) {
  EXPECT_EQ(ProgramCache::directory_for_setting("off"), "");
  ProgramCache cache(ProgramCache::directory_for_setting("off"));
  get(cache, "kernel A", nullptr);
  cache.clear_memory();
  get(cache, "kernel A", nullptr);
  EXPECT_EQ(compiles, 2);
  EXPECT_FALSE(std::filesystem::exists(directory));
}

TEST(ProgramCacheSettings, DefaultDirectoryFollowsXdgCacheHome) {
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(ProgramCache::directory_for_setting("default"), "/tmp/xdg-test/strata/kernels");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(ProgramCache::directory_for_setting("/data/k"), "/data/k");
}

}  // namespace
}  // namespace strata::device
