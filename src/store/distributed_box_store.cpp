#include "strata/store/distributed_box_store.hpp"

#include <fmt/format.h>

#include "box_index.hpp"

namespace strata::store {
namespace {

// The part `part` of the box `within`, as a memory box of a chunk holding `within`.
memory::Box part_of(const Region& within, const Region& part) {
  std::array<std::uint64_t, 3> shape{}, offset{}, extent{};
  for (std::uint32_t d = 0; d < within.dims; ++d) {
    shape[d] = within.hi[d] - within.lo[d];
    offset[d] = part.lo[d] - within.lo[d];
    extent[d] = part.hi[d] - part.lo[d];
  }
  const auto first = [&](const std::array<std::uint64_t, 3>& values) {
    return std::span<const std::uint64_t>(values.data(), within.dims);
  };
  return memory::Box::of(first(shape), first(offset), first(extent));
}

}  // namespace

DistributedBoxStore::DistributedBoxStore(cluster::Driver& driver)
    : driver_(driver), index_(std::make_unique<detail::BoxIndex>()) {}

DistributedBoxStore::~DistributedBoxStore() {
  for (const auto& [id, chunk] : chunks_)
    driver_.destroy(chunk);
}

void DistributedBoxStore::add(const DataKey& key, const Region& box, device::ElementType type,
                              cluster::ChunkRef chunk) {
  const std::uint64_t id = next_id_++;
  for (const std::uint64_t covered : index_->add(key, box, type, id)) {
    driver_.destroy(chunks_.at(covered));
    chunks_.erase(covered);
  }
  chunks_.emplace(id, chunk);
}

void DistributedBoxStore::write(const DataKey& key, const Region& box, device::ElementType type,
                                std::span<const std::byte> values) {
  const int rank = next_rank_;
  next_rank_ = (next_rank_ + 1) % driver_.size();
  write_on(rank, key, box, type, values);
}

void DistributedBoxStore::write_on(int rank, const DataKey& key, const Region& box,
                                   device::ElementType type, std::span<const std::byte> values) {
  index_->check_write(key, box, type, values.size());
  if (rank < 0 || rank >= driver_.size()) {
    throw Error(fmt::format("write of {} box {}: no rank {} (there are {})", key.describe(),
                            box.describe(), rank, driver_.size()));
  }
  const cluster::ChunkRef chunk =
      driver_.create_chunk(key.describe() + " " + box.describe(), values.size(), rank);
  driver_.write(chunk, values);
  add(key, box, type, chunk);
}

void DistributedBoxStore::put(const DataKey& key, const Region& box, device::ElementType type,
                              cluster::ChunkRef chunk) {
  index_->check_write(key, box, type, driver_.capacity_of(chunk));
  add(key, box, type, chunk);
}

void DistributedBoxStore::read(const DataKey& key, const Region& box, device::ElementType type,
                               std::span<std::byte> out) {
  for (const detail::BoxIndex::Piece& part : index_->pieces_for(key, box, type, out.size())) {
    const std::vector<std::byte> stored = driver_.fetch(chunks_.at(part.id));
    detail::copy_part(index_->find(key, part.id)->box, stored, box, out, part.box, type);
  }
}

void DistributedBoxStore::assemble_into(const DataKey& key, const Region& box,
                                        device::ElementType type, cluster::ChunkRef target) {
  const std::uint64_t bytes = box.elements() * device::size_of(type);
  if (driver_.capacity_of(target) != bytes) {
    throw Error(fmt::format("assembly of {} box {}: the target chunk has {} B, the box {} B",
                            key.describe(), box.describe(), driver_.capacity_of(target), bytes));
  }
  std::vector<cluster::BoxCopyRequest> copies;
  for (const detail::BoxIndex::Piece& part : index_->pieces_for(key, box, type, bytes)) {
    cluster::BoxCopyRequest copy;
    copy.from = chunks_.at(part.id);
    copy.from_box = part_of(index_->find(key, part.id)->box, part.box);
    copy.to = target;
    copy.to_box = part_of(box, part.box);
    copy.element_bytes = static_cast<std::uint32_t>(device::size_of(type));
    copies.push_back(copy);
  }
  driver_.copy_boxes(copies);
}

std::vector<StoredBox> DistributedBoxStore::boxes() const {
  return index_->boxes();
}

std::set<int> DistributedBoxStore::holders(const DataKey& key, const Region& box) const {
  for (const auto& [id, chunk] : chunks_) {
    const detail::BoxIndex::Piece* piece = index_->find(key, id);
    if (piece != nullptr && piece->box == box) return driver_.holders(chunk);
  }
  throw BoxNotStored(fmt::format("no box {} of {} is stored", box.describe(), key.describe()));
}

void DistributedBoxStore::flush() {
  driver_.wait_all();
}

}  // namespace strata::store
