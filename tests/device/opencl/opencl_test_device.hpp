#pragma once
// The OpenCL device the backend tests run on (the first one discovery finds), or a skip.

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "strata/device/backends.hpp"

namespace strata::device::testing {

// The first OpenCL device with a memory-only program cache; null (and `why` set) if none.
Device* opencl_device(std::string* why = nullptr);

// Discovers OpenCL devices as `config` says, with its own program cache.
std::vector<std::unique_ptr<Device>> discover(const Config& config, std::string& status,
                                              std::shared_ptr<ProgramCache> cache = nullptr);

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

}  // namespace strata::device::testing

// Skips the test unless there is an OpenCL device, then names it `device` (a Device&).
#define STRATA_REQUIRE_OPENCL(device)                                     \
  std::string strata_opencl_why;                                          \
  ::strata::device::Device* strata_opencl_device =                        \
      ::strata::device::testing::opencl_device(&strata_opencl_why);       \
  if (strata_opencl_device == nullptr) GTEST_SKIP() << strata_opencl_why; \
  ::strata::device::Device& device = *strata_opencl_device
