// The microscopy engine tests' main: the process's network (a plain start is a cluster of one),
// which the engine runs over.
#include <gtest/gtest.h>

#include "strata/cluster/network.hpp"

namespace strata::apps::microscopy {

namespace {
cluster::Network* the_network = nullptr;
}

cluster::Network& engine_test_network() {
  return *the_network;
}

}  // namespace strata::apps::microscopy

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::cluster::Network network(&argc, &argv);
  strata::apps::microscopy::the_network = &network;
  return RUN_ALL_TESTS();
}
