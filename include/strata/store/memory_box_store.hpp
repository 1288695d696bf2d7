#pragma once
// A box store in memory: each stored box is a chunk of the memory manager, so that boxes beyond
// the host's capacity spill to disk and come back when read.

#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>

#include "strata/memory/memory_manager.hpp"
#include "strata/store/box_store.hpp"

namespace strata::store::detail {
class BoxIndex;
}

namespace strata::store {

class MemoryBoxStore : public BoxStore {
 public:
  explicit MemoryBoxStore(memory::MemoryManager& memory);
  // Frees its chunks.
  ~MemoryBoxStore() override;
  MemoryBoxStore(const MemoryBoxStore&) = delete;
  MemoryBoxStore& operator=(const MemoryBoxStore&) = delete;

  void write(const DataKey& key, const Region& box, device::ElementType type,
             std::span<const std::byte> values) override;
  void read(const DataKey& key, const Region& box, device::ElementType type,
            std::span<std::byte> out) override;
  std::vector<StoredBox> boxes() const override;

 private:
  memory::MemoryManager& memory_;
  mutable std::shared_mutex lock_;  // reads shared; a write's change of the index exclusive
  std::unique_ptr<detail::BoxIndex> index_;
  std::map<std::uint64_t, memory::ChunkId> chunks_;  // by the index's ids
  std::uint64_t next_id_ = 1;
};

}  // namespace strata::store
