#pragma once
// Array: a distributed array as the driver knows it — name, element type, shape, distribution,
// and its chunks (the region each holds, the device of the rank it lives on, the plan's name for
// it). A cheap handle; Arrays creates and deletes them.

#include <memory>
#include <string>
#include <vector>

#include "strata/array/distribution.hpp"
#include "strata/cluster/driver.hpp"
#include "strata/device/element_type.hpp"

namespace strata::array {

// One chunk of an array.
struct ArrayChunk {
  ChunkPlacement placement;
  cluster::ChunkRef ref;
};

class Array {
 public:
  struct Record {
    std::string name;
    device::ElementType type = device::ElementType::f32;
    Shape shape;
    std::string distribution;
    std::vector<ArrayChunk> chunks;
    bool deleted = false;
  };

  Array() = default;
  explicit Array(std::shared_ptr<Record> record) : record_(std::move(record)) {}

  bool valid() const { return record_ != nullptr && !record_->deleted; }
  const std::string& name() const { return record_->name; }
  device::ElementType type() const { return record_->type; }
  const Shape& shape() const { return record_->shape; }
  const std::string& distribution() const { return record_->distribution; }
  const std::vector<ArrayChunk>& chunks() const { return record_->chunks; }
  std::uint64_t element_bytes() const { return device::size_of(record_->type); }
  Record& record() const { return *record_; }

 private:
  std::shared_ptr<Record> record_;
};

}  // namespace strata::array
