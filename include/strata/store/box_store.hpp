#pragma once
// Box stores: n-d data written and read by key (data_key.hpp) and bounding box, behind one
// interface whatever holds it — memory (memory_box_store.hpp), ranks (distributed_box_store.hpp),
// HDF5 files (hdf5_box_store.hpp). A read that overlaps several stored boxes assembles them;
// where stored boxes overlap, the later write wins.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/base/error.hpp"
#include "strata/device/element_type.hpp"
#include "strata/store/data_key.hpp"
#include "strata/store/region.hpp"

namespace strata::store {

// One box written to a store: whose data, where, of which element type.
struct StoredBox {
  DataKey key;
  Region box;
  device::ElementType type = device::ElementType::u8;
};

// A read of a part no write covered: names the key, the box read and the part missing.
class BoxNotStored : public Error {
 public:
  using Error::Error;
};

class BoxStore {
 public:
  virtual ~BoxStore() = default;

  // Stores `values` (the box's elements of `type`, row-major) as `key`'s data in `box`. Every
  // box of one key has one element type and number of dimensions (throws naming the key
  // otherwise). Writing a box again replaces it.
  virtual void write(const DataKey& key, const Region& box, device::ElementType type,
                     std::span<const std::byte> values) = 0;
  // Reads `key`'s data in `box` into `out` (its elements of `type`, row-major), assembled from
  // every stored box it overlaps. Throws BoxNotStored when part of it was never written.
  virtual void read(const DataKey& key, const Region& box, device::ElementType type,
                    std::span<std::byte> out) = 0;
  // Every box stored, by key, each key's in the order they were written.
  virtual std::vector<StoredBox> boxes() const = 0;
  // Waits until every write so far is where the store keeps it (staged writes done); throws
  // the first that failed. A store that writes at once returns at once.
  virtual void flush() {}

  // read() into a vector of T.
  template <typename T>
  std::vector<T> read_as(const DataKey& key, const Region& box) {
    std::vector<T> values(box.elements());
    read(key, box, device::element_type_of<T>(), std::as_writable_bytes(std::span(values)));
    return values;
  }
  // write() of a span of T.
  template <typename T>
  void write_of(const DataKey& key, const Region& box, std::span<const T> values) {
    write(key, box, device::element_type_of<T>(), std::as_bytes(values));
  }
};

}  // namespace strata::store
