#pragma once
// What the distributed-launch tests share: the node and driver of the program (rank 0 runs the
// tests as the driver's main) and the kernels every rank defines.

#include <atomic>
#include <vector>

#include "strata/array/arrays.hpp"

namespace strata::array::testing {

extern node::Node* the_node;
extern cluster::Driver* the_driver;

// The lightning paper's stencil (Fig. 7): out[i] = (in[i-1] + in[i] + in[i+1]) / 3, zero outside.
ArrayKernel stencil_kernel();
// C[i][j] = sum_k A[i][k] * B[k][j] for n x n matrices (thread (x, y) = (j, i)).
ArrayKernel matmul_kernel();
// x[i] = a * x[i] + i.
ArrayKernel scale_kernel();
// For an int matrix A (rows x cols; thread (x, y) = (j, i)): reduce(+) sums[j] = column sums,
// reduce(max) peaks[i] = row maxima.
ArrayKernel column_sums_kernel();
// reduce(+) y[i-1:i+1]: every x[i] added to its own and its neighbours' y (superblocks' reduced
// regions overlap without being equal).
ArrayKernel spread_kernel();
// reduce(+) totals[x[i] % bins] += x[i], without atomics on the CPU (one thread runs a block):
// correct only while no two blocks add into one partial at once.
ArrayKernel tally_kernel();
// x[i] += 1 once hold_released is set on the driver (CPU only; it waits at most 20 s): work that
// stays queued on rank 0's CPU device until a test lets it go.
ArrayKernel hold_kernel();
extern std::atomic<bool> hold_released;
// x[i] = -x[i] for an int vector, with a C++ body only (no OpenCL or CUDA implementation).
ArrayKernel negate_on_cpu_kernel();

std::vector<ArrayKernel> all_kernels();

}  // namespace strata::array::testing
