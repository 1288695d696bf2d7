// Runs the node's plan tests as one Strata program: every rank builds its node (CPU and OpenCL
// devices where available) and defines the kernels; rank 0 runs GoogleTest as the driver's main.

#include <gtest/gtest.h>

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
  strata::node::testing::the_node = &node;
  int tests = 0;
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    strata::node::testing::the_driver = &driver;
    tests = RUN_ALL_TESTS();
  });
  return status != 0 ? status : tests;
}
