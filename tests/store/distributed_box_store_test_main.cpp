// Runs the distributed box store's tests as one Strata program: every rank defines the test's
// operation, rank 0 runs GoogleTest as the driver's main, the other ranks execute their plans.

#include <gtest/gtest.h>

#include "store_test_support.hpp"
#include "strata/cluster/serialization.hpp"
#include "strata/node/node.hpp"

namespace strata::store::testing {
cluster::Driver* the_driver = nullptr;
}  // namespace strata::store::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::node::Node node(argc, argv, strata::node::NodeOptions{});
  strata::cluster::Program& program = node.program();
  // Writes row * 4096 + col (i32) at each element of the box given as the argument.
  program.define("fill_box", [](strata::cluster::OperationContext& context) {
    const auto box = context.args<strata::store::Region>();
    auto out = context.chunk_as<std::int32_t>(0);
    std::size_t i = 0;
    for (std::uint64_t r = box.lo[0]; r < box.hi[0]; ++r)
      for (std::uint64_t c = box.lo[1]; c < box.hi[1]; ++c)
        out[i++] = static_cast<std::int32_t>(r * 4096 + c);
  });
  int tests = 0;
  const int status = program.run([&](strata::cluster::Driver& driver) {
    strata::store::testing::the_driver = &driver;
    tests = RUN_ALL_TESTS();
  });
  return status != 0 ? status : tests;
}
