#pragma once
// The node and driver of the node's plan tests (node_plan_test_main.cpp), and their kernels.

#include "strata/node/node.hpp"

namespace strata::node::testing {

extern Node* the_node;
extern cluster::Driver* the_driver;

// y[i] = a * x[i] + y[i] for i < n (CPU and OpenCL C).
device::KernelDefinition axpy_kernel();

}  // namespace strata::node::testing
