#pragma once
// What the data-set tests share: the node and driver of the program (rank 0 runs the tests as
// the driver's main).

#include "strata/dataset/datasets.hpp"

namespace strata::dataset::testing {

extern node::Node* the_node;
extern cluster::Driver* the_driver;

}  // namespace strata::dataset::testing
