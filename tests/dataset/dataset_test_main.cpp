// Runs the data-set tests as one Strata program: every rank builds its node and defines the
// front end's operations; rank 0 runs GoogleTest as the driver's main.

#include <gtest/gtest.h>

#include "dataset_test_support.hpp"
#include "strata/base/crash_report.hpp"
#include "strata/memory/settings.hpp"
#include "strata/runtime/settings.hpp"

namespace strata::dataset::testing {

node::Node* the_node = nullptr;
cluster::Driver* the_driver = nullptr;

}  // namespace strata::dataset::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::install_crash_report("dataset_test");
  strata::node::NodeOptions options;
  options.config.section<strata::runtime::RuntimeSettings>().cpu_threads = 2;
  options.config.section<strata::memory::MemorySettings>().host_capacity = 256ull << 20;
  strata::node::Node node(argc, argv, options);
  strata::dataset::Datasets::prepare(node);
  strata::dataset::testing::the_node = &node;
  int tests = 0;
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    strata::dataset::testing::the_driver = &driver;
    tests = RUN_ALL_TESTS();
  });
  return status != 0 ? status : tests;
}
