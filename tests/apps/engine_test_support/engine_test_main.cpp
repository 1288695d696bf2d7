// The applications' engine tests' main: the process's network, which the engine runs over.

#include <gtest/gtest.h>

#include "engine_test_support.hpp"

namespace strata::apps::engine_testing {
namespace {
cluster::Network* the_network = nullptr;
}  // namespace

cluster::Network& network() {
  return *the_network;
}

}  // namespace strata::apps::engine_testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::cluster::Network network(&argc, &argv);
  strata::apps::engine_testing::the_network = &network;
  return RUN_ALL_TESTS();
}
