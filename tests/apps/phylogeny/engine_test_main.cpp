// The phylogeny engine tests' main: the process's network (a plain start is a cluster of one),
// which the engine runs over.

#include <gtest/gtest.h>

#include "strata/cluster/network.hpp"

namespace strata::apps::phylogeny {
namespace {
cluster::Network* the_network = nullptr;
}  // namespace

cluster::Network& engine_test_network() {
  return *the_network;
}

}  // namespace strata::apps::phylogeny

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  strata::cluster::Network network(&argc, &argv);
  strata::apps::phylogeny::the_network = &network;
  return RUN_ALL_TESTS();
}
