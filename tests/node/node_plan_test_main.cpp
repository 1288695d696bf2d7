// Runs the node's plan tests as one Strata program: every rank builds its node (CPU and OpenCL
// devices where available) and defines the kernels; rank 0 runs GoogleTest as the driver's main.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "node_plan_support.hpp"

namespace strata::node::testing {

Node* the_node = nullptr;
cluster::Driver* the_driver = nullptr;

device::KernelDefinition axpy_kernel() {
  return device::KernelDefinition("axpy")
      .scalar<std::uint32_t>("n")
      .scalar<float>("a")
      .array<float>("x", device::ParamAccess::read)
      .array<float>("y", device::ParamAccess::read_write)
      .cpu([](const device::CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto a = block.scalar<float>(1);
        const float* x = block.array<float>(2);
        float* y = block.array<float>(3);
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
          y[i] = a * x[i] + y[i];
      })
      .opencl(R"(
__kernel void axpy(uint n, float a, __global const float* x, __global float* y) {
  const size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
)");
}

device::KernelDefinition keep_below_kernel() {
  return device::KernelDefinition("keep_below")
      .scalar<std::uint32_t>("n")
      .scalar<std::uint32_t>("limit")
      .array<std::uint32_t>("x", device::ParamAccess::read)
      .array<std::uint32_t>("kept", device::ParamAccess::write)
      .array<std::uint32_t>("count", device::ParamAccess::read_write)
      .cpu([](const device::CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto limit = block.scalar<std::uint32_t>(1);
        const auto* x = block.array<std::uint32_t>(2);
        auto* kept = block.array<std::uint32_t>(3);
        std::atomic_ref<std::uint32_t> count(*block.array<std::uint32_t>(4));
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
          if (x[i] < limit) kept[count.fetch_add(1)] = x[i];
      })
      .opencl(R"(
__kernel void keep_below(uint n, uint limit, __global const uint* x, __global uint* kept,
                         __global uint* count) {
  const size_t i = get_global_id(0);
  if (i < n && x[i] < limit) kept[atomic_inc(count)] = x[i];
}
)");
}

device::KernelDefinition add_u32_kernel() {
  return device::KernelDefinition("add_u32")
      .scalar<std::uint32_t>("n")
      .scalar<std::uint32_t>("a")
      .array<std::uint32_t>("x", device::ParamAccess::read_write)
      .cpu([](const device::CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto a = block.scalar<std::uint32_t>(1);
        auto* x = block.array<std::uint32_t>(2);
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i)
          x[i] += a;
      })
      .opencl(R"(
__kernel void add_u32(uint n, uint a, __global uint* x) {
  const size_t i = get_global_id(0);
  if (i < n) x[i] += a;
}
)");
}

std::atomic<bool> gate_open{false};

device::KernelDefinition gate_kernel() {
  return device::KernelDefinition("gate")
      .array<std::uint32_t>("x", device::ParamAccess::read_write)
      .cpu([](const device::CpuBlock& block) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!gate_open.load() && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        block.array<std::uint32_t>(0)[0] += 1;
      });
}

void define_late_size_operations(cluster::Program& program) {
  program.define("keep_odd", [](cluster::OperationContext& op) {
    const auto values = op.chunk_as<std::uint32_t>(0);
    const auto kept = op.chunk_as<std::uint32_t>(1);  // the capacity, while it is written
    std::size_t count = 0;
    for (const std::uint32_t value : values)
      if (value % 2 == 1) kept[count++] = value;
    op.set_size(1, count * sizeof(std::uint32_t));
  });
  program.define("count_and_sum", [](cluster::OperationContext& op) {
    const auto result = op.chunk_as<std::uint64_t>(0);
    const auto values = op.chunk_as<std::uint32_t>(1);  // its size, as its writer set it
    result[0] = values.size();
    result[1] = 0;
    for (const std::uint32_t value : values)
      result[1] += value;
  });
}

}  // namespace strata::node::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::node::NodeOptions options;
  options.config.section<strata::runtime::RuntimeSettings>().cpu_threads = 2;
  options.config.section<strata::device::DeviceSettings>().backends = "cpu,opencl";
  options.config.section<strata::device::DeviceSettings>().kernel_cache_dir = "off";
  options.config.section<strata::memory::MemorySettings>().device_capacity = 16ull << 20;
  options.config.section<strata::memory::MemorySettings>().host_capacity = 64ull << 20;
  strata::node::Node node(argc, argv, options);
  node.define_kernel(strata::node::testing::axpy_kernel());
  node.define_kernel(strata::node::testing::keep_below_kernel());
  node.define_kernel(strata::node::testing::add_u32_kernel());
  node.define_kernel(strata::node::testing::gate_kernel());
  strata::node::testing::define_late_size_operations(node.program());
  strata::node::testing::the_node = &node;
  int tests = 0;
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    strata::node::testing::the_driver = &driver;
    tests = RUN_ALL_TESTS();
  });
  return status != 0 ? status : tests;
}
