#include "strata/store/memory_box_store.hpp"

#include <mutex>

#include "box_index.hpp"

namespace strata::store {

MemoryBoxStore::MemoryBoxStore(memory::MemoryManager& memory)
    : memory_(memory), index_(std::make_unique<detail::BoxIndex>()) {}

MemoryBoxStore::~MemoryBoxStore() {
  for (const auto& [id, chunk] : chunks_)
    memory_.destroy_chunk(chunk);
}

void MemoryBoxStore::write(const DataKey& key, const Region& box, device::ElementType type,
                           std::span<const std::byte> values) {
  {
    const std::shared_lock reading(lock_);
    index_->check_write(key, box, type, values.size());
  }
  // The copy into the chunk (and any spilling it causes) runs outside the lock.
  const memory::ChunkId chunk =
      memory_.create_chunk(key.describe() + " " + box.describe(), values.size(), values);
  const std::unique_lock writing(lock_);
  std::vector<std::uint64_t> covered;
  try {
    covered = index_->add(key, box, type, next_id_);
  } catch (...) {
    memory_.destroy_chunk(chunk);  // another write of the key changed its type meanwhile
    throw;
  }
  chunks_.emplace(next_id_++, chunk);
  for (const std::uint64_t id : covered) {
    memory_.destroy_chunk(chunks_.at(id));
    chunks_.erase(id);
  }
}

void MemoryBoxStore::read(const DataKey& key, const Region& box, device::ElementType type,
                          std::span<std::byte> out) {
  const std::shared_lock reading(lock_);
  for (const detail::BoxIndex::Piece& part : index_->pieces_for(key, box, type, out.size())) {
    const memory::ChunkRequest request{chunks_.at(part.id), memory::ChunkAccess::read};
    const std::vector<memory::ChunkView> views =
        memory_.acquire(std::span(&request, 1), memory_.host());
    const Region& stored = index_->find(key, part.id)->box;
    try {
      detail::copy_part(
          stored, std::span(static_cast<const std::byte*>(views.front().host), views.front().bytes),
          box, out, part.box, type);
    } catch (...) {
      memory_.release(std::span(&request, 1), memory_.host());
      throw;
    }
    memory_.release(std::span(&request, 1), memory_.host());
  }
}

std::vector<StoredBox> MemoryBoxStore::boxes() const {
  const std::shared_lock reading(lock_);
  return index_->boxes();
}

}  // namespace strata::store
