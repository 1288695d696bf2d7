#pragma once
// Shared pieces of the camera application's tests: temporary directories, files, the devices
// the tests run on (CPU always, OpenCL where an ICD offers a device), and kernel launches on
// plain device buffers.

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "strata/allpairs/sequential_run.hpp"
#include "strata/device/device.hpp"

namespace strata::apps::camera::testing {

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

std::vector<std::byte> read_bytes(const std::filesystem::path& path);
void write_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes);
void write_bytes(const std::filesystem::path& path, std::span<const unsigned char> bytes);

// The device of a backend the tests run on ("cpu" or "opencl"), created once per process;
// null for "opencl" when there is none, with the reason in `why`.
device::Device* test_device(const std::string& backend, std::string* why = nullptr);

// Kernel launches on plain device buffers of floats.
class KernelHarness {
 public:
  explicit KernelHarness(device::Device& device) : device_(device), context_(device) {}
  device::DeviceBuffer upload(std::span<const float> values);
  device::DeviceBuffer zeros(std::size_t count);
  std::vector<float> download(const device::DeviceBuffer& buffer, std::size_t count);
  allpairs::KernelLauncher& context() { return context_; }

 private:
  device::Device& device_;
  allpairs::KernelLauncher context_;
};

}  // namespace strata::apps::camera::testing

// Skips the test unless the backend named by GetParam() has a device, then names it `device`.
#define CAMERA_REQUIRE_DEVICE(device)                                               \
  std::string camera_device_why;                                                    \
  ::strata::device::Device* camera_device =                                         \
      ::strata::apps::camera::testing::test_device(GetParam(), &camera_device_why); \
  if (camera_device == nullptr) GTEST_SKIP() << camera_device_why;                  \
  ::strata::device::Device& device = *camera_device
