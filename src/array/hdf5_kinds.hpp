#pragma once
// The plan kinds "array_h5_read" and "array_h5_write": a rank reads a box of an HDF5 dataset
// into one of its chunks, or writes a chunk into a box of the dataset, on its I/O executor —
// each rank its own chunks, nothing gathered on one rank, the ranks' writes at the same time.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/array/region.hpp"
#include "strata/cluster/plan_kinds.hpp"
#include "strata/device/element_type.hpp"

namespace strata::array::detail {

inline constexpr const char* hdf5_read_kind_name = "array_h5_read";
inline constexpr const char* hdf5_write_kind_name = "array_h5_write";

struct Hdf5Box {
  std::string path;
  std::string dataset;
  std::uint32_t dims = 1;
  std::array<std::uint64_t, 3> lo{0, 0, 0};
  std::array<std::uint64_t, 3> hi{1, 1, 1};
  device::ElementType type = device::ElementType::f32;
  // Writes: the dataset's shape and where its elements start in the file (create_hdf5_dataset).
  std::vector<std::uint64_t> shape;
  std::uint64_t data_offset = 0;

  Region region() const {
    Region made;
    made.dims = dims;
    made.lo = lo;
    made.hi = hi;
    return made;
  }
  template <class Archive>
  void serialize(Archive& archive) {
    archive(path, dataset, dims, lo, hi, type, shape, data_offset);
  }
};

// accesses[0]: the chunk (written by a read, read by a write). The writes of all ranks into one
// file run at once (write_hdf5_box_at: each its own boxes, at their places in the file).
void hdf5_read_kind(cluster::PlanContext& context, const cluster::PlanOp& op);
void hdf5_write_kind(cluster::PlanContext& context, const cluster::PlanOp& op);

}  // namespace strata::array::detail
