// Launches that fail, each a program of its own (CTest runs one test per process).
// Out of memory with everything pinned: a superblock whose arrays together exceed its device's
// memory (three arrays of 8 MiB on a device of 16 MiB) fails the launch with the memory layer's
// report — the device, the bytes asked and the capacity, and what is allocated there (arrays an
// earlier launch left) — carried to the
// driver from the rank that ran it (the last rank), never a hang. A program of its own: a
// failure ends a Strata program (on several ranks, every rank), so CTest passes it by its output
// (GoogleTest's summary) and bounds it with a timeout.
// A kernel that does not compile for the device a superblock runs on: the launch fails with the
// compiler's message (the variants compile in tasks of their own that the kernel tasks follow).

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "strata/array/arrays.hpp"

namespace strata::array {
namespace {

node::Node* the_node = nullptr;
cluster::Driver* the_driver = nullptr;

constexpr std::uint64_t array_bytes = 8ull << 20;
constexpr std::uint64_t n = array_bytes / sizeof(float);

// c[i] = a[i] + b[i]: one superblock touches all three arrays.
ArrayKernel add_kernel() {
  return ArrayKernel(device::KernelDefinition("add")
                         .scalar<std::int32_t>("n")
                         .array<float>("c", device::ParamAccess::write)
                         .array<float>("a", device::ParamAccess::read)
                         .array<float>("b", device::ParamAccess::read)
                         .cpu([](const device::CpuBlock& block) {
                           const auto count =
                               static_cast<std::uint64_t>(block.scalar<std::int32_t>(0));
                           const auto c = block.global_array<float>(1);
                           const auto a = block.global_array<float>(2);
                           const auto b = block.global_array<float>(3);
                           for (std::uint64_t i = block.begin.x; i < block.end.x && i < count; ++i)
                             c(i) = a(i) + b(i);
                         }),
                     "global i => write c[i], read a[i], read b[i]");
}

// Only an OpenCL body: the CPU device cannot compile it.
ArrayKernel opencl_only_kernel() {
  return ArrayKernel(device::KernelDefinition("opencl_only")
                         .scalar<std::int32_t>("n")
                         .array<float>("x", device::ParamAccess::read_write)
                         .opencl(R"(
void opencl_only(uint3 virtBlockIdx, int n, __global float* x) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i < n) x[i] += 1.0f;
})",
                                 device::KernelStyle::virtual_blocks),
                     "global i => readwrite x[i]");
}

TEST(ArrayCompileFailure, AKernelThatDoesNotCompileFailsTheLaunchWithTheCompilersMessage) {
  Arrays arrays(*the_node, *the_driver);
  Array x = arrays.create("x", device::ElementType::f32, {4096}, Distribution::row_blocks(1024));
  arrays.launch(opencl_only_kernel(), Grid{{4096}, {256}}, WorkDistribution::tiled({4}),
                {Argument::value<std::int32_t>(4096), x});
  std::string message = "(no error)";
  try {
    arrays.synchronize();
  } catch (const cluster::RankFailed& failed) {
    message = failed.what();
  }
  EXPECT_NE(message.find("failed"), std::string::npos) << message;
  EXPECT_NE(message.find("kernel 'opencl_only' has no C++ implementation for the cpu backend"),
            std::string::npos)
      << message;
}

TEST(ArrayOutOfMemory, ASuperblockLargerThanItsDeviceFailsWithTheMemoryReport) {
  Arrays arrays(*the_node, *the_driver);
  const Place place{the_driver->size() - 1, 0};
  const Distribution there =
      Distribution::custom("one chunk there", [place](const Shape& shape, const Topology&) {
        return std::vector<ChunkPlacement>{{Region::whole(shape), place}};
      });
  const WorkDistribution one_superblock = WorkDistribution::custom(
      "one superblock there", [place](const std::array<std::uint64_t, 3>& blocks, const Topology&) {
        SuperblockPlacement all;
        for (std::size_t d = 0; d < 3; ++d)
          all.blocks.upper[d] = blocks[d];
        all.place = place;
        return std::vector<SuperblockPlacement>{all};
      });
  // 3 MiB left in the device's memory by an earlier launch: the report lists them.
  constexpr std::uint64_t small = (1ull << 20) / sizeof(float);
  Array held_c = arrays.create("held_c", device::ElementType::f32, {small}, there);
  Array held_a = arrays.create("held_a", device::ElementType::f32, {small}, there);
  Array held_b = arrays.create("held_b", device::ElementType::f32, {small}, there);
  arrays.launch(
      add_kernel(), Grid{{small}, {1024}}, one_superblock,
      {Argument::value<std::int32_t>(static_cast<std::int32_t>(small)), held_c, held_a, held_b});
  arrays.synchronize();
  Array a = arrays.create("a", device::ElementType::f32, {n}, there);
  Array b = arrays.create("b", device::ElementType::f32, {n}, there);
  Array c = arrays.create("c", device::ElementType::f32, {n}, there);
  arrays.launch(add_kernel(), Grid{{n}, {1024}}, one_superblock,
                {Argument::value<std::int32_t>(static_cast<std::int32_t>(n)), c, a, b});
  std::string message = "(no error)";
  try {
    arrays.synchronize();
  } catch (const cluster::RankFailed& failed) {
    message = failed.what();
    EXPECT_EQ(failed.rank(), place.rank);
  }
  // The rank, the kernel's task, then the memory layer's report: the device space, the request
  // and the capacity, and what is allocated there now.
  EXPECT_NE(message.find("rank " + std::to_string(place.rank) + " failed"), std::string::npos)
      << message;
  EXPECT_NE(message.find("add"), std::string::npos) << message;
  EXPECT_NE(message.find("out of memory in"), std::string::npos) << message;
  EXPECT_NE(message.find("(device space)"), std::string::npos) << message;
  EXPECT_NE(message.find("a request for 24.00 MiB in 3 chunk(s)"), std::string::npos) << message;
  EXPECT_NE(message.find("capacity of 16.00 MiB"), std::string::npos) << message;
  EXPECT_NE(message.find("'a[0:" + std::to_string(n) + "]'"), std::string::npos) << message;
  EXPECT_NE(message.find("no other task holds memory there"), std::string::npos) << message;
  EXPECT_NE(message.find("allocated now:"), std::string::npos) << message;
  EXPECT_NE(message.find("'held_a[0:" + std::to_string(small) + "]' 1.00 MiB (unpinned)"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace strata::array

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::node::NodeOptions options;
  auto& runtime = options.config.section<strata::runtime::RuntimeSettings>();
  auto& devices = options.config.section<strata::device::DeviceSettings>();
  auto& memory = options.config.section<strata::memory::MemorySettings>();
  runtime.cpu_threads = 2;
  devices.backends = "cpu";
  memory.cpu_device_memory = "own";  // the CPU device stands in for a device of 16 MiB
  memory.device_capacity = 16ull << 20;
  memory.host_capacity = 64ull << 20;
  strata::node::Node node(argc, argv, options);
  const std::vector<strata::array::ArrayKernel> kernels{strata::array::add_kernel(),
                                                        strata::array::opencl_only_kernel()};
  strata::array::Arrays::prepare(node, kernels);
  strata::array::the_node = &node;
  int tests = 0;
  // The failure the test expects ends the program with a non-zero status after it.
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    strata::array::the_driver = &driver;
    tests = RUN_ALL_TESTS();
    std::fflush(stdout);  // on several ranks the failure then ends the job at once
  });
  return status != 0 ? status : tests;
}
