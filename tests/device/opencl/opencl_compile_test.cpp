// Run-time compilation: build errors with the compiler's log, and the program cache in memory
// and on disk (binaries, checksums).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "opencl_test_device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

using testing::TempDir;

KernelDefinition fill_kernel(const std::string& name = "fill") {
  return KernelDefinition(name)
      .scalar<std::uint32_t>("n")
      .scalar<float>("value")
      .array<float>("out", ParamAccess::write)
      .opencl("__kernel void " + name + R"((uint n, float value, __global float* out) {
  const size_t i = get_global_id(0);
  if (i < n) out[i] = value;
}
)");
}

void expect_fill_works(Device& device, const CompiledKernel& kernel) {
  constexpr std::uint32_t n = 300;
  DeviceBuffer out = device.allocate(n * sizeof(float));
  Event done =
      device.queue(QueueKind::compute)
          .launch(kernel, LaunchGeometry{Dim3{n}, Dim3{64}, 1},
                  {KernelArg::value(n), KernelArg::value(2.5f), KernelArg::array<float>(out)});
  std::vector<float> values(n);
  device.queue(QueueKind::device_to_host)
      .copy_to_host(values.data(), out, 0, n * sizeof(float), std::span(&done, 1))
      .wait();
  EXPECT_EQ(values, std::vector<float>(n, 2.5f));
}

std::unique_ptr<Device> device_with_cache(std::shared_ptr<ProgramCache> cache) {
  std::string status;
  auto devices = testing::discover(Config{}, status, std::move(cache));
  return devices.empty() ? nullptr : std::move(devices.front());
}

TEST(OpenClCompile, BuildErrorsNameKernelBackendDeviceAndShowTheLog) {
  STRATA_REQUIRE_OPENCL(device);
  auto broken = KernelDefinition("broken")
                    .array<float>("out", ParamAccess::write)
                    .define("UNUSED", "1")
                    .opencl(
                        "__kernel void broken(__global float* out) {\n"
                        "  out[0] = 1.0f;\n"
                        "  out[1] = no_such_symbol;\n"
                        "}\n");
  try {
    device.compile(broken);
    FAIL() << "expected a KernelCompileError";
  } catch (const KernelCompileError& error) {
    const std::string what = error.what();
    EXPECT_EQ(error.kernel(), "broken");
    EXPECT_EQ(error.backend(), "opencl");
    EXPECT_NE(what.find("'broken'"), std::string::npos) << what;
    EXPECT_NE(what.find("opencl"), std::string::npos) << what;
    EXPECT_NE(what.find(device.info().name), std::string::npos) << what;
    EXPECT_NE(what.find("no_such_symbol"), std::string::npos) << what;
    EXPECT_FALSE(error.log().empty());
    // Line 3 of the kernel's own source (the #defines Strata puts in front do not count).
    EXPECT_TRUE(std::regex_search(what, std::regex("broken\\.cl:3:[0-9]+:"))) << what;
  }
}

TEST(OpenClCompile, AKernelWithoutOpenClSourceIsRefused) {
  STRATA_REQUIRE_OPENCL(device);
  auto cpu_only = KernelDefinition("cpu_only").cpu([](const CpuBlock&) {});
  try {
    device.compile(cpu_only);
    FAIL() << "expected a KernelCompileError";
  } catch (const KernelCompileError& error) {
    EXPECT_NE(std::string(error.what()).find("no OpenCL C implementation"), std::string::npos)
        << error.what();
  }
}

TEST(OpenClCompile, ASignatureThatDoesNotMatchTheSourceIsRefused) {
  STRATA_REQUIRE_OPENCL(device);
  auto kernel = KernelDefinition("short_sig")
                    .array<float>("out", ParamAccess::write)
                    .opencl("__kernel void short_sig(__global float* out, uint n) {}");
  EXPECT_THROW(device.compile(kernel), KernelCompileError);
}

TEST(OpenClCompile, ASecondCompileHitsTheMemoryCache) {
  if (testing::opencl_device() == nullptr) GTEST_SKIP() << "no OpenCL device";
  auto cache = std::make_shared<ProgramCache>();
  auto device = device_with_cache(cache);
  auto first = device->compile(fill_kernel());
  EXPECT_FALSE(first->from_cache());
  auto second = device->compile(fill_kernel());
  EXPECT_TRUE(second->from_cache());
  EXPECT_EQ(cache->stats().compiles, 1u);
  EXPECT_EQ(cache->stats().memory_hits, 1u);
  expect_fill_works(*device, *second);
  // Other constants are another program.
  CompileOptions options;
  options.defines = {{"UNUSED", "2"}};
  EXPECT_FALSE(device->compile(fill_kernel(), options)->from_cache());
}

TEST(OpenClCompile, AFreshCacheOnTheSameDirectoryHitsTheDisk) {
  if (testing::opencl_device() == nullptr) GTEST_SKIP() << "no OpenCL device";
  TempDir dir;
  {
    auto device = device_with_cache(std::make_shared<ProgramCache>(dir.path().string()));
    EXPECT_FALSE(device->compile(fill_kernel())->from_cache());
  }
  auto cache = std::make_shared<ProgramCache>(dir.path().string());
  auto device = device_with_cache(cache);
  auto kernel = device->compile(fill_kernel());
  EXPECT_TRUE(kernel->from_cache());
  EXPECT_EQ(cache->stats().disk_hits, 1u);
  EXPECT_EQ(cache->stats().compiles, 0u);
  expect_fill_works(*device, *kernel);  // the program built from the cached binary runs
}

TEST(OpenClCompile, ACorruptedCacheFileIsDetectedAndRecompiled) {
  if (testing::opencl_device() == nullptr) GTEST_SKIP() << "no OpenCL device";
  TempDir dir;
  {
    auto device = device_with_cache(std::make_shared<ProgramCache>(dir.path().string()));
    device->compile(fill_kernel());
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    // Flip one byte of the payload (after the 16-byte header): the checksum no longer matches.
    std::fstream file(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    const auto middle = static_cast<std::streamoff>(16 + (entry.file_size() - 16) / 2);
    file.seekg(middle);
    const char original = static_cast<char>(file.get());
    file.seekp(middle);
    file.put(static_cast<char>(~original));
  }
  ASSERT_EQ(files, 1);
  auto cache = std::make_shared<ProgramCache>(dir.path().string());
  auto device = device_with_cache(cache);
  auto kernel = device->compile(fill_kernel());
  EXPECT_FALSE(kernel->from_cache());
  EXPECT_EQ(cache->stats().corrupt_files, 1u);
  EXPECT_EQ(cache->stats().compiles, 1u);
  expect_fill_works(*device, *kernel);
}

}  // namespace
}  // namespace strata::device
