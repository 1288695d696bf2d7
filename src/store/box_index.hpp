#pragma once
// What a box store knows of the boxes it holds: per key, the stored boxes in write order (with
// the backend's id for each), the pieces a read copies from, and what it lacks.

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "strata/store/box_store.hpp"

namespace strata::store::detail {

class BoxIndex {
 public:
  struct Piece {
    std::uint64_t id = 0;
    Region box;
  };

  // Checks `box` and `type` against the key's other boxes and `bytes` against the box (throws
  // naming the key), without adding it.
  void check_write(const DataKey& key, const Region& box, device::ElementType type,
                   std::uint64_t bytes) const;
  // Adds the box under `id` (ids increase with the writes); returns the ids of the boxes it
  // covers whole, which no read needs any more (removed from the index).
  std::vector<std::uint64_t> add(const DataKey& key, const Region& box, device::ElementType type,
                                 std::uint64_t id);
  // Removes the box with `id` (a write that failed); false if it is not there.
  bool remove(const DataKey& key, std::uint64_t id);
  // The stored boxes a read of `box` copies from, in write order, each as far as it overlaps
  // `box` (later ones overwrite earlier ones). Throws BoxNotStored naming the key, the box and a
  // part no write covered; throws Error for another element type or number of dimensions, or
  // `bytes` that do not make the box.
  std::vector<Piece> pieces_for(const DataKey& key, const Region& box, device::ElementType type,
                                std::uint64_t bytes) const;
  std::vector<StoredBox> boxes() const;
  // The box stored under `id`, of `key`.
  const Piece* find(const DataKey& key, std::uint64_t id) const;

 private:
  struct Entry {
    device::ElementType type = device::ElementType::u8;
    std::uint32_t dims = 1;
    std::vector<Piece> pieces;  // in write order
  };
  void check(const DataKey& key, const Region& box, device::ElementType type, std::uint64_t bytes,
             const char* what) const;

  std::map<DataKey, Entry> keys_;
};

// Copies the part `part` of a stored box (`stored`: its box, `from`: its elements) into the
// elements `to` of the box `read`.
void copy_part(const Region& stored, std::span<const std::byte> from, const Region& read,
               std::span<std::byte> to, const Region& part, device::ElementType type);

}  // namespace strata::store::detail
