#pragma once
// The reduce(op) accesses of one launch (the lightning paper, §2.4): each superblock's kernel
// combines into a partial that starts at the operator's identity; the partials are combined per
// device, then per rank and over the ranks (the driver's reduction tree), and the result replaces
// the reduced elements in every chunk that holds them. A device's superblocks take its partials
// in turn from a ring of a few (as many as kernels it runs side by side): a partial's next
// superblock combines into what its last one left, ordered after it by the runtime as any
// read-write, so a launch of thousands of superblocks makes and combines a few partials, not one
// each. Where one superblock alone reduces a region that is exactly a chunk on its own device,
// the chunk itself starts at the identity and takes the kernel's results (what hand-written code
// does): no partial, no copy back, only the copies to the region's other holders (replicas).

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "strata/array/array.hpp"
#include "strata/cluster/driver.hpp"
#include "strata/memory/combine.hpp"

namespace strata::array::detail {

class ReducePlan {
 public:
  // `regions[s]`: superblock s's access region of `array` (empty where it touches none).
  // Superblocks whose regions overlap without being equal share one partial shape: the box
  // around all of them. `shared`: the launch passes the array in another parameter too (its
  // chunks are then never reduced into in place).
  ReducePlan(const Array& array, memory::ReduceOp op, const std::vector<Region>& regions,
             bool shared);

  // The region superblock s's partial holds.
  const Region& partial_region(std::size_t superblock) const;
  // Which of the launch's overlapping groups of regions superblock s reduces into: superblocks
  // of one component may share a partial.
  std::size_t component(std::size_t superblock) const { return component_of_[superblock]; }
  // Superblock s's partial on `place`'s rank (or the chunk reduced in place). Its first
  // superblock's task fills it with identity() before the kernel combines into it (`fresh`); a
  // later one's kernel combines into it as it is.
  struct Target {
    cluster::ChunkRef ref;
    bool in_place = false;
    bool fresh = true;
  };
  Target add_partial(cluster::Driver& driver, std::size_t superblock, const Place& place,
                     const std::string& kernel);
  // The operator's identity, one element of the array's type.
  std::array<unsigned char, 8> identity() const;
  // Plans the combination of the partials and the scatter of the results into the array's
  // chunks, and frees the temporaries. Returns the box copies planned.
  std::uint64_t finish(cluster::Driver& driver, const std::string& kernel);

 private:
  struct Partial {
    cluster::ChunkRef ref;
    Place place;
    bool in_place = false;  // a chunk of the array, not a temporary
  };
  // A device's ring of partials of one component, taken in turn.
  struct Ring {
    std::vector<std::size_t> partials;  // indices into Component::partials
    std::size_t taken = 0;
  };
  // Overlapping regions of the launch and the partials that hold their box.
  struct Component {
    Region box;
    std::vector<Region> regions;  // distinct
    std::vector<Partial> partials;
    std::map<std::pair<int, std::uint32_t>, Ring> rings;  // by (rank, device)
    std::size_t superblocks = 0;                          // that reduce into it
  };

  const Array& array_;
  memory::ReduceOp op_;
  bool shared_;
  std::size_t ring_size_;
  std::vector<Component> components_;
  std::vector<std::size_t> component_of_;  // per superblock; npos: none
};

}  // namespace strata::array::detail
