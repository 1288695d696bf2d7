#pragma once
// Work distributions (the lightning paper, §2.1): how the thread blocks of a distributed kernel
// launch are grouped into superblocks — disjoint boxes of blocks — and which device of which
// rank runs each.

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "strata/array/access_region.hpp"
#include "strata/array/distribution.hpp"

namespace strata::array {

// A superblock and where it runs.
struct SuperblockPlacement {
  Superblock blocks;
  Place place;
};

class WorkDistribution {
 public:
  using Custom = std::function<std::vector<SuperblockPlacement>(
      const std::array<std::uint64_t, 3>& blocks, const Topology&)>;

  // Superblocks of `blocks` thread blocks per dimension (missing ones: all), spread over the
  // places in contiguous groups.
  static WorkDistribution tiled(std::vector<std::uint64_t> blocks);
  // The same, dealt one per place in turn.
  static WorkDistribution round_robin(std::vector<std::uint64_t> blocks);
  // The same, placed by Strata where little work is queued (Distribution::Assign::
  // least_queued_work): each superblock to the place with the fewest planned operations not
  // finished at the launch, counting the superblocks placed before it (ties: the most free
  // device memory, then the first place). Where the loads are unknown the places count as equal.
  static WorkDistribution automatic(std::vector<std::uint64_t> blocks);
  // As many superblocks as places, cut along the slowest-varying launch dimension used.
  static WorkDistribution even();
  // The user's superblocks; checked to be disjoint, to cover the grid and to lie on known places.
  static WorkDistribution custom(std::string name, Custom superblocks);

  // The same superblocks, each run on whichever device of its rank the rank's placement policy
  // (the setting `placement`) picks when its data is ready, among the devices the kernel has an
  // implementation for; its place's device is only where its data is looked for first. One
  // kernel task per superblock (no batches). `speedup`: of an accelerator over the CPU for
  // PATS; 0: learned from the runtime's history.
  WorkDistribution on_any_device(double speedup = 0) const;
  bool leaves_device_to_rank() const { return any_device_; }
  double speedup() const { return speedup_; }

  // The superblocks of a launch of `blocks` thread blocks per dimension (`dims` of them used).
  std::vector<SuperblockPlacement> superblocks(const std::array<std::uint64_t, 3>& blocks,
                                               std::uint32_t dims, const Topology& topology,
                                               const std::string& kernel) const;
  const std::string& describe() const { return name_; }

 private:
  enum class Kind { tiled, even, custom };
  WorkDistribution(Kind kind, std::string name) : kind_(kind), name_(std::move(name)) {}

  Kind kind_;
  std::string name_;
  std::vector<std::uint64_t> tile_;
  Distribution::Assign assign_ = Distribution::Assign::blocked;
  Custom custom_;
  bool any_device_ = false;
  double speedup_ = 0;
};

}  // namespace strata::array
