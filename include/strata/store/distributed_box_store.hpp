#pragma once
// A box store over the ranks, on the driver: each box stays on the rank that wrote it, as a chunk
// of the driver's directory whose home is that rank; the store's index (on the driver) says which
// rank holds which box. read() brings the boxes a read overlaps to the driver; assemble_into()
// copies them into a chunk on any rank, moving only the overlapping parts between ranks. Used
// from the driver's thread only, as the driver is.

#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include "strata/cluster/driver.hpp"
#include "strata/store/box_store.hpp"

namespace strata::store::detail {
class BoxIndex;
}

namespace strata::store {

class DistributedBoxStore : public BoxStore {
 public:
  explicit DistributedBoxStore(cluster::Driver& driver);
  // Frees the chunks of its boxes (those given with put() too).
  ~DistributedBoxStore() override;
  DistributedBoxStore(const DistributedBoxStore&) = delete;
  DistributedBoxStore& operator=(const DistributedBoxStore&) = delete;

  // Writes the driver's values to a rank, the ranks taken in turn (write_on to choose).
  void write(const DataKey& key, const Region& box, device::ElementType type,
             std::span<const std::byte> values) override;
  void write_on(int rank, const DataKey& key, const Region& box, device::ElementType type,
                std::span<const std::byte> values);
  // Takes `chunk` (the box's elements of `type`, row-major, written or to be written by
  // operations planned on its rank) as `key`'s data in `box`: the data stays where it is. The
  // store owns the chunk from then on.
  void put(const DataKey& key, const Region& box, device::ElementType type,
           cluster::ChunkRef chunk);
  // Fetches the boxes the read overlaps to the driver (which keeps them as replicas until they
  // are written again) and assembles the read from them.
  void read(const DataKey& key, const Region& box, device::ElementType type,
            std::span<std::byte> out) override;
  // Plans the copies that fill `target` (a chunk of the box's elements of `type`) with `key`'s
  // data in `box`, where the target is (its home if nothing wrote it yet): a stage on that rank
  // reads an assembled region without the driver seeing its bytes.
  void assemble_into(const DataKey& key, const Region& box, device::ElementType type,
                     cluster::ChunkRef target);
  std::vector<StoredBox> boxes() const override;
  // The ranks that hold a valid copy of a stored box (throws BoxNotStored if it is not stored).
  std::set<int> holders(const DataKey& key, const Region& box) const;
  // Waits until every rank ran what was planned (the writes' and assemblies' copies included).
  void flush() override;

 private:
  // Adds the box under its chunk; frees the chunks of the boxes it covers.
  void add(const DataKey& key, const Region& box, device::ElementType type,
           cluster::ChunkRef chunk);

  cluster::Driver& driver_;
  std::unique_ptr<detail::BoxIndex> index_;
  std::map<std::uint64_t, cluster::ChunkRef> chunks_;  // by the index's ids
  std::uint64_t next_id_ = 1;
  int next_rank_ = 0;
};

}  // namespace strata::store
