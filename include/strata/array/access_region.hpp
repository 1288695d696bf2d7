#pragma once
// Access regions (the lightning paper, §2.4): for one superblock of a distributed kernel launch,
// the box of each argument array that its threads access, computed from the kernel's annotation
// as the planner does before it looks for the chunks that hold the box.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "strata/array/annotation.hpp"

namespace strata::array {

// The threads of a kernel launch: `grid` threads per dimension (x, y, z) in blocks of `block`
// threads; the last block of a dimension may be partly outside the grid.
struct LaunchGeometry {
  std::array<std::uint64_t, 3> grid{1, 1, 1};
  std::array<std::uint64_t, 3> block{1, 1, 1};

  std::array<std::uint64_t, 3> blocks() const;  // per dimension: grid / block, rounded up
};

// A superblock: the thread blocks [lower, upper) per dimension, which one device runs.
struct Superblock {
  std::array<std::uint64_t, 3> lower{0, 0, 0};
  std::array<std::uint64_t, 3> upper{1, 1, 1};
};

// What a launch passes beside its geometry: the extents of every argument array and the value of
// every scalar argument, by name.
struct LaunchArguments {
  std::map<std::string, std::vector<std::uint64_t>, std::less<>> shapes;
  std::map<std::string, std::int64_t, std::less<>> scalars;
};

// The elements [lower, upper) per dimension of one array that a superblock accesses, clamped to
// the array's shape; empty when any dimension is.
struct AccessRegion {
  std::string array;
  AccessMode mode = AccessMode::read;
  ReduceOp reduce_op = ReduceOp::sum;
  std::vector<std::uint64_t> lower;
  std::vector<std::uint64_t> upper;

  bool empty() const;
  std::uint64_t elements() const;
  std::string describe() const;  // "read A[0:5, 2:3]"
};

// The values [lower, upper) that each bound variable of `binding` takes over the superblock's
// threads that lie in the grid: thread indices for global, block indices for block, indices
// within a block for local. Throws strata::Error when the superblock is empty or leaves the grid.
std::vector<std::array<std::int64_t, 2>> variable_ranges(Binding binding, std::size_t variables,
                                                         const LaunchGeometry& geometry,
                                                         const Superblock& superblock);

// One region per access of `annotation`, in its order. An index's range over the superblock is
// the hull of its values (an affine bound is smallest and largest at corners of the variables'
// box); a slice covers its lower bound's smallest value to its upper bound's largest. Throws
// AnnotationError, quoting the annotation, for an array or scalar that `arguments` lacks, an
// array whose rank differs from its number of indices, and an index that overflows 64 bits.
std::vector<AccessRegion> access_regions(const Annotation& annotation,
                                         const LaunchGeometry& geometry,
                                         const Superblock& superblock,
                                         const LaunchArguments& arguments);

}  // namespace strata::array
