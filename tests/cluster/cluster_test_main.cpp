// Runs the cluster tests as one Strata program: every rank defines the test operations, rank 0
// runs GoogleTest as the driver's main, the other ranks execute their plans. CTest starts it
// plainly (a cluster of one) and under mpirun with 2 and 4 processes.

#include <gtest/gtest.h>

#include "cluster_test_support.hpp"
#include "strata/node/node.hpp"

namespace strata::cluster::testing {
Driver* the_driver = nullptr;
runtime::Runtime* the_runtime = nullptr;
Network* the_network = nullptr;
}  // namespace strata::cluster::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::node::NodeOptions options;
  options.config.section<strata::memory::MemorySettings>().host_capacity = 64ull << 20;
  options.config.section<strata::cluster::ClusterSettings>().network_piece_bytes =
      4096;  // small pieces: every transfer here moves several
  options.config.section<strata::cluster::ClusterSettings>().plan_window =
      strata::cluster::testing::test_plan_window;
  strata::node::Node node(argc, argv, options);
  strata::cluster::Program& program = node.program();
  strata::cluster::testing::define_operations(program);
  strata::cluster::testing::the_runtime = &program.runtime();
  strata::cluster::testing::the_network = &program.network();
  int tests = 0;
  const int status = program.run([&](strata::cluster::Driver& driver) {
    strata::cluster::testing::the_driver = &driver;
    tests = RUN_ALL_TESTS();
  });
  return status != 0 ? status : tests;
}
