#pragma once
// K-Means (the lightning paper's §4.2, after Rodinia) as three distributed kernels over arrays
// of `features`-wide points: assign each point its nearest centre, sum the points of each centre
// with reduce(+) on the devices, and divide the sums into the next centres.

#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

inline constexpr int kmeans_features = 4;

// labels[i] = the nearest of the k centres to points[i, :] (the lowest index on a tie).
// Arguments: n, k, points (n x 4 f32), centres (k x 4 f32), labels (n i32).
array::ArrayKernel kmeans_assign_kernel();
// sums[c, :] += points[i, :] and counts[c] += 1 for c = labels[i], as reduce(+) accesses.
// Arguments: n, k, points, labels, sums (k x 4 f32), counts (k i32).
array::ArrayKernel kmeans_accumulate_kernel();
// centres[c, :] = sums[c, :] / counts[c] where counts[c] > 0 (an empty cluster keeps its centre).
// Arguments: k, sums, counts, centres.
array::ArrayKernel kmeans_divide_kernel();

std::vector<array::ArrayKernel> kmeans_kernels();

}  // namespace strata::lightning
