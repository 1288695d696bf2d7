#pragma once
// The node and driver of the node's plan tests (node_plan_test_main.cpp), and their kernels.

#include <atomic>

#include "strata/node/node.hpp"

namespace strata::node::testing {

extern Node* the_node;
extern cluster::Driver* the_driver;

// y[i] = a * x[i] + y[i] for i < n (CPU and OpenCL C).
device::KernelDefinition axpy_kernel();
// A filter: the x[i] < limit (i < n) go to `kept`, in any order; `count` counts them
// (a u32 the kernel increments atomically; the node zeroes it and sets kept's late size).
device::KernelDefinition keep_below_kernel();
// x[i] += a for i < n.
device::KernelDefinition add_u32_kernel();
// x[0] += 1 once the driver's gate_open is set (CPU only; it waits at most 20 s): work that stays
// queued on rank 0's CPU device until the test lets it go.
device::KernelDefinition gate_kernel();
extern std::atomic<bool> gate_open;
// Host operations: "keep_odd" (the odd u32 of chunk 0 into late-sized chunk 1, in order) and
// "count_and_sum" (chunk 1's two u64 become chunk 0's element count and sum, as u32).
void define_late_size_operations(cluster::Program& program);

}  // namespace strata::node::testing
