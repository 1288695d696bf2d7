#pragma once
// The superblocks of one launch gathered, per device, into batches that each run as one kernel
// task (node::Node::plan_kernels): with small chunks a launch has thousands of superblocks, and
// the runtime's cost per task (records, staging, dependencies) would bound the throughput (the
// lightning paper's Fig. 10, left side). A batch's chunks are staged together, so a batch closes
// once they reach a byte limit, or a count that keeps every device several batches to overlap
// and balance.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "strata/array/distribution.hpp"
#include "strata/cluster/driver.hpp"
#include "strata/node/node.hpp"

namespace strata::array::detail {

class LaunchBatches {
 public:
  struct Limits {
    std::uint64_t bytes = 0;      // a batch closes once its chunks hold this much; 0: no batching
    std::size_t superblocks = 1;  // or once it holds this many superblocks
  };

  // What a batch's superblocks plan once its kernels are: box copies of their results (planned
  // together, so that a launch's halo updates cost a task a batch), then drops of temporaries.
  // Without temporaries the copies wait for the launch's last batch: planned before a later
  // batch's kernels, a copy into a chunk that batch writes (a halo, a replica's slice) would
  // order the kernels on another rank or device after this batch's, one batch after the other.
  struct FollowUp {
    std::vector<cluster::BoxCopyRequest> copies;
    std::vector<cluster::ChunkRef> drops;
  };

  // A batch being filled on one device.
  class Batch {
   public:
    // The index of `chunk` among the batch's uses, added with `mode` (a chunk used twice is
    // read-write unless both uses are the same); `bytes` count towards the limit once.
    std::uint32_t use(cluster::ChunkRef chunk, runtime::Access mode, std::uint64_t bytes);
    // The use an earlier superblock of the batch reduces into for `key` (a parameter and its
    // reduced component), if any; later ones combine into the same partial.
    std::optional<std::uint32_t> reduction(std::pair<std::size_t, std::size_t> key) const;
    void set_reduction(std::pair<std::size_t, std::size_t> key, std::uint32_t use);
    // Adds to what is planned once the batch is.
    void after(std::function<void(FollowUp&)> plan) { after_.push_back(std::move(plan)); }
    // The superblock's launch ends the batch: it uses a temporary that later planning may drop.
    void close_after_this() { close_ = true; }

   private:
    friend class LaunchBatches;
    Place place_;
    std::size_t first_superblock_ = 0;
    node::KernelBatch launches_;
    std::vector<cluster::Use> uses_;
    std::unordered_map<std::uint64_t, std::uint32_t> use_of_;  // by chunk id
    std::map<std::pair<std::size_t, std::size_t>, std::uint32_t> reductions_;
    std::vector<std::function<void(FollowUp&)>> after_;
    std::uint64_t bytes_ = 0;
    bool close_ = false;
  };

  LaunchBatches(node::Node& node, cluster::Driver& driver, std::string kernel);

  // The batch open on `place` for superblock `superblock` (a new one if none is open there).
  Batch& open(const Place& place, std::size_t superblock, const Limits& limits);
  // Adds the superblock's launch to its batch, and plans the batch when it is full.
  void add(Batch& batch, node::KernelLaunch launch);
  // Plans every open batch, then the copies that waited for them (a launch's last step; batches
  // still open are not planned).
  void close_all();
  // Kernel tasks planned so far.
  std::uint64_t tasks() const { return tasks_; }

 private:
  void close(Batch& batch);

  node::Node& node_;
  cluster::Driver& driver_;
  std::string kernel_;
  std::map<std::pair<int, std::uint32_t>, std::pair<Batch, Limits>> open_;  // by rank, device
  std::vector<cluster::BoxCopyRequest> waiting_;  // copies of closed batches without temporaries
  std::uint64_t tasks_ = 0;
};

}  // namespace strata::array::detail
