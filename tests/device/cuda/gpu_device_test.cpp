// The CUDA device: what discovery reports, memory, copies, compilation and refused launches.
// Label gpu: skipped, with the reason, without a CUDA device.

#include "gpu_device.hpp"

#include <cstring>
#include <numeric>

#include "conformance_kernels.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

using namespace testing;

template <typename Exception>
std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(CudaDevice, DiscoveryDescribesEachDevice) {
  STRATA_REQUIRE_CUDA_DEVICE();
  const auto& devices = cuda_devices().devices;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& info = devices[i]->info();
    std::printf("%s: %s, %s, %llu MiB, %u SMs, %u threads per block\n", info.id.c_str(),
                info.name.c_str(), info.platform.c_str(),
                static_cast<unsigned long long>(info.memory_bytes >> 20), info.compute_units,
                info.max_block_threads);
    EXPECT_EQ(info.backend, BackendKind::cuda);
    EXPECT_EQ(info.id, "cuda:" + std::to_string(i));
    EXPECT_FALSE(info.name.empty());
    EXPECT_NE(info.platform.find("CUDA driver"), std::string::npos);
    EXPECT_GT(info.memory_bytes, 0u);
    EXPECT_GT(info.compute_units, 0u);
    EXPECT_GE(info.max_block_threads, 256u);
  }
  EXPECT_EQ(cuda_status(),
            std::to_string(devices.size()) + (devices.size() == 1 ? " device" : " devices"));
}

TEST(CudaDevice, CopiesRoundTripThroughPinnedAndPageableMemory) {
  STRATA_REQUIRE_CUDA_DEVICE();
  constexpr std::size_t count = 1 << 20;
  HostBuffer pinned = gpu().allocate_host(count * sizeof(int));
  auto* values = static_cast<int*>(pinned.data());
  std::iota(values, values + count, 0);
  DeviceBuffer a = gpu().allocate(count * sizeof(int));
  DeviceBuffer b = gpu().allocate(count * sizeof(int) + 64);
  Queue& up = gpu().queue(QueueKind::host_to_device);
  Queue& compute = gpu().queue(QueueKind::compute);
  Queue& down = gpu().queue(QueueKind::device_to_host);
  Event uploaded = up.copy_to_device(a, 0, values, count * sizeof(int));
  Event moved = compute.copy_on_device(b, 64, a, 0, count * sizeof(int), std::span(&uploaded, 1));
  std::vector<int> back(count, -1);
  down.copy_to_host(back.data(), b, 64, count * sizeof(int), std::span(&moved, 1)).wait();
  EXPECT_EQ(0, std::memcmp(back.data(), values, count * sizeof(int)));
  // A part, at offsets, into pageable memory.
  std::vector<int> part(10);
  down.copy_to_host(part.data(), a, 100 * sizeof(int), part.size() * sizeof(int)).wait();
  EXPECT_EQ(part.front(), 100);
  EXPECT_EQ(part.back(), 109);
}

TEST(CudaDevice, CopiesOutsideTheBufferAreRefused) {
  STRATA_REQUIRE_CUDA_DEVICE();
  DeviceBuffer buffer = gpu().allocate(1024);
  std::vector<char> host(2048);
  const auto what = message_of<DeviceError>([&] {
    gpu().queue(QueueKind::host_to_device).copy_to_device(buffer, 512, host.data(), 1024);
  });
  EXPECT_NE(what.find("cuda:0 copy to device: 1024 B at offset 512 exceed the 1024 B buffer"),
            std::string::npos)
      << what;
  EXPECT_THROW(gpu().queue(QueueKind::device_to_host).copy_to_host(host.data(), buffer, 1025, 0),
               DeviceError);
  DeviceBuffer empty;
  EXPECT_THROW(gpu().queue(QueueKind::compute).copy_on_device(buffer, 0, empty, 0, 1), DeviceError);
}

TEST(CudaDevice, AnImpossibleAllocationNamesDeviceBytesAndFreeMemory) {
  STRATA_REQUIRE_CUDA_DEVICE();
  const std::uint64_t bytes = gpu().info().memory_bytes * 4;
  const auto what = message_of<DeviceError>([&] { gpu().allocate(bytes); });
  EXPECT_NE(what.find("cuda:0"), std::string::npos) << what;
  EXPECT_NE(what.find(std::to_string(bytes) + " B"), std::string::npos) << what;
  EXPECT_NE(what.find("free"), std::string::npos) << what;
  EXPECT_NO_THROW(gpu().allocate(1024)) << "the failure did not poison the context";
}

TEST(CudaDevice, KernelsWithoutCudaSourceOrWithErrorsAreCompileErrors) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto cpu_only = KernelDefinition("cpu_only").cpu([](const CpuBlock&) {});
  EXPECT_NE(message_of<KernelCompileError>([&] { gpu().compile(cpu_only); }).find("no CUDA source"),
            std::string::npos);
  auto broken = KernelDefinition("broken").cuda("extern \"C\" __global__ void broken() { x; }");
  const auto what = message_of<KernelCompileError>([&] { gpu().compile(broken); });
  EXPECT_NE(what.find("kernel 'broken'"), std::string::npos) << what;
  EXPECT_NE(what.find(gpu().info().name), std::string::npos) << what;
  EXPECT_NE(what.find("broken.cu(1)"), std::string::npos) << what;
}

TEST(CudaDevice, ASecondCompileComesFromTheProgramCache) {
  STRATA_REQUIRE_CUDA_DEVICE();
  CompileOptions options;
  options.defines = {
      {"CACHE_PROBE", std::to_string(::testing::UnitTest::GetInstance()->random_seed())}};
  auto first = gpu().compile(vector_add_kernel(), options);
  auto second = gpu().compile(vector_add_kernel(), options);
  EXPECT_FALSE(first->from_cache());
  EXPECT_TRUE(second->from_cache());
}

TEST(CudaDevice, BadLaunchesAreRefusedNamingTheParameter) {
  STRATA_REQUIRE_CUDA_DEVICE();
  auto kernel = gpu().compile(vector_add_kernel());
  DeviceBuffer a = gpu().allocate(1024 * sizeof(float));
  Queue& compute = gpu().queue(QueueKind::compute);
  const LaunchGeometry geometry{Dim3{1024}, Dim3{128}, 1};
  const auto refused = [&](const KernelArgs& args,
                           const LaunchGeometry& shape = {Dim3{1024}, Dim3{128}, 1}) {
    try {
      compute.launch(*kernel, shape, args);
    } catch (const KernelLaunchError& e) {
      return e.param() + " | " + e.what();
    }
    return std::string("launched");
  };
  const auto f = KernelArg::array<float>(a);
  EXPECT_EQ(refused({KernelArg::value(1.5f), f, f, f}).substr(0, 4), "n | ");
  EXPECT_NE(refused({KernelArg::value(1024u), f, KernelArg::value(2.0f), f}).find("b | "),
            std::string::npos);
  EXPECT_NE(refused({KernelArg::value(1024u), f, f}).find("takes 4 arguments"), std::string::npos);
  auto cpu = make_cpu_device(default_block_runner());
  DeviceBuffer host_side = cpu->allocate(1024 * sizeof(float));
  const auto foreign = refused({KernelArg::value(1024u), f, f, KernelArg::array<float>(host_side)});
  EXPECT_NE(foreign.find("c | "), std::string::npos) << foreign;
  EXPECT_NE(foreign.find("another device (cpu"), std::string::npos) << foreign;
  const auto too_big = refused({KernelArg::value(1024u), f, f, f}, {Dim3{4096}, Dim3{4096}, 1});
  EXPECT_NE(too_big.find("exceeds the device's"), std::string::npos) << too_big;
  auto cpu_kernel = cpu->compile(KernelDefinition("k").cpu([](const CpuBlock&) {}));
  EXPECT_THROW(compute.launch(*cpu_kernel, geometry, {}), KernelLaunchError);
}

}  // namespace
}  // namespace strata::device
