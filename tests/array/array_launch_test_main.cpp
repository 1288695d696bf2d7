// Runs the distributed-launch tests as one Strata program: every rank builds its node (CPU and
// OpenCL and CUDA devices where available) and defines the kernels; rank 0 runs GoogleTest as the
// driver's main.

#include <gtest/gtest.h>

#include "array_launch_support.hpp"
#include "strata/base/crash_report.hpp"
#include "strata/cluster/settings.hpp"

namespace strata::array::testing {

node::Node* the_node = nullptr;
cluster::Driver* the_driver = nullptr;

}  // namespace strata::array::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::install_crash_report("array_launch_test");
  strata::node::NodeOptions options;
  auto& runtime = options.config.section<strata::runtime::RuntimeSettings>();
  auto& devices = options.config.section<strata::device::DeviceSettings>();
  auto& memory = options.config.section<strata::memory::MemorySettings>();
  runtime.cpu_threads = 2;
  devices.backends = "cpu,opencl,cuda";
  memory.device_capacity = 16ull << 20;
  memory.host_capacity = 64ull << 20;
  // A small plan window: every launch here plans under back-pressure.
  options.config.section<strata::cluster::ClusterSettings>().plan_window = 64;
  strata::node::Node node(argc, argv, options);
  strata::array::Arrays::prepare(node, strata::array::testing::all_kernels());
  strata::array::testing::the_node = &node;
  int tests = 0;
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    strata::array::testing::the_driver = &driver;
    tests = RUN_ALL_TESTS();
  });
  return status != 0 ? status : tests;
}
