#include "box_index.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "strata/memory/box.hpp"

namespace strata::store::detail {

void BoxIndex::check(const DataKey& key, const Region& box, device::ElementType type,
                     std::uint64_t bytes, const char* what) const {
  if (box.empty()) {
    throw Error(fmt::format("{} of {}: the box {} is empty", what, key.describe(), box.describe()));
  }
  const std::uint64_t expected = box.elements() * device::size_of(type);
  if (bytes != expected) {
    throw Error(fmt::format("{} of {}: {} B for box {} of {} (it takes {} B)", what, key.describe(),
                            bytes, box.describe(), device::to_string(type), expected));
  }
  const auto found = keys_.find(key);
  if (found == keys_.end()) return;
  const Entry& entry = found->second;
  if (entry.type != type || entry.dims != box.dims) {
    throw Error(fmt::format("{} of {}: box {} of {} in {} dimensions, but its data is {} in {}",
                            what, key.describe(), box.describe(), device::to_string(type), box.dims,
                            device::to_string(entry.type), entry.dims));
  }
}

void BoxIndex::check_write(const DataKey& key, const Region& box, device::ElementType type,
                           std::uint64_t bytes) const {
  check(key, box, type, bytes, "write");
}

std::vector<std::uint64_t> BoxIndex::add(const DataKey& key, const Region& box,
                                         device::ElementType type, std::uint64_t id) {
  check(key, box, type, box.elements() * device::size_of(type), "write");
  Entry& entry = keys_[key];
  entry.type = type;
  entry.dims = box.dims;
  std::vector<std::uint64_t> covered;
  std::erase_if(entry.pieces, [&](const Piece& piece) {
    if (!box.contains(piece.box)) return false;
    covered.push_back(piece.id);
    return true;
  });
  entry.pieces.push_back(Piece{id, box});
  return covered;
}

bool BoxIndex::remove(const DataKey& key, std::uint64_t id) {
  const auto found = keys_.find(key);
  if (found == keys_.end()) return false;
  const bool removed =
      std::erase_if(found->second.pieces, [&](const Piece& piece) { return piece.id == id; }) > 0;
  if (found->second.pieces.empty()) keys_.erase(found);
  return removed;
}

std::vector<BoxIndex::Piece> BoxIndex::pieces_for(const DataKey& key, const Region& box,
                                                  device::ElementType type,
                                                  std::uint64_t bytes) const {
  check(key, box, type, bytes, "read");
  const auto found = keys_.find(key);
  if (found == keys_.end()) {
    throw BoxNotStored(
        fmt::format("read of {}: nothing is stored under this key (box {} asked for)",
                    key.describe(), box.describe()));
  }
  std::vector<Piece> pieces;
  std::vector<Region> missing{box};
  for (const Piece& piece : found->second.pieces) {
    const std::optional<Region> part = piece.box.intersect(box);
    if (!part) continue;
    pieces.push_back(Piece{piece.id, *part});
    std::vector<Region> still;
    for (const Region& gap : missing) {
      const std::vector<Region> rest = gap.minus(piece.box);
      still.insert(still.end(), rest.begin(), rest.end());
    }
    missing = std::move(still);
  }
  if (!missing.empty()) {
    throw BoxNotStored(fmt::format(
        "read of {}: box {} was not all written; nothing stored covers {} ({} stored box{} "
        "overlap{} it)",
        key.describe(), box.describe(), missing.front().describe(), pieces.size(),
        pieces.size() == 1 ? "" : "es", pieces.size() == 1 ? "s" : ""));
  }
  return pieces;
}

std::vector<StoredBox> BoxIndex::boxes() const {
  std::vector<StoredBox> stored;
  for (const auto& [key, entry] : keys_)
    for (const Piece& piece : entry.pieces)
      stored.push_back(StoredBox{key, piece.box, entry.type});
  return stored;
}

const BoxIndex::Piece* BoxIndex::find(const DataKey& key, std::uint64_t id) const {
  const auto found = keys_.find(key);
  if (found == keys_.end()) return nullptr;
  for (const Piece& piece : found->second.pieces)
    if (piece.id == id) return &piece;
  return nullptr;
}

void copy_part(const Region& stored, std::span<const std::byte> from, const Region& read,
               std::span<std::byte> to, const Region& part, device::ElementType type) {
  const std::span<const std::uint64_t> dims(part.lo.data(), part.dims);
  std::array<std::uint64_t, 3> stored_shape{}, read_shape{}, in_stored{}, in_read{}, extent{};
  for (std::uint32_t d = 0; d < part.dims; ++d) {
    stored_shape[d] = stored.hi[d] - stored.lo[d];
    read_shape[d] = read.hi[d] - read.lo[d];
    in_stored[d] = part.lo[d] - stored.lo[d];
    in_read[d] = part.lo[d] - read.lo[d];
    extent[d] = part.hi[d] - part.lo[d];
  }
  const auto first = [&](const std::array<std::uint64_t, 3>& values) {
    return std::span<const std::uint64_t>(values.data(), dims.size());
  };
  memory::copy_box(from, memory::Box::of(first(stored_shape), first(in_stored), first(extent)), to,
                   memory::Box::of(first(read_shape), first(in_read), first(extent)),
                   static_cast<std::uint32_t>(device::size_of(type)));
}

}  // namespace strata::store::detail
