#pragma once
// HDF5 files of n-d data, below the front ends: the datasets a file holds (name, element type,
// shape) and reads and writes of one box (hyperslab) of a dataset — what each rank does for its
// own chunks of an array, and what the box store's HDF5 backend writes. Errors name the file, the
// dataset and what was expected. Calls into the HDF5 library are serialized within the process
// (Debian's serial build is not thread-safe); write_hdf5_box_at does not call it.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/device/element_type.hpp"
#include "strata/store/region.hpp"

namespace strata::store {

struct Hdf5Dataset {
  std::string name;  // its path in the file, e.g. "/images/cells"
  device::ElementType type = device::ElementType::f32;
  std::vector<std::uint64_t> shape;
  std::string unsupported;  // why Strata cannot hold it as an array (empty: it can)
};

// Every dataset in the file, in the order HDF5 visits them.
std::vector<Hdf5Dataset> list_hdf5_datasets(const std::string& path);
// One dataset, checked to be an array of 1 to 3 dimensions of a numeric type Strata holds.
Hdf5Dataset describe_hdf5_dataset(const std::string& path, const std::string& dataset);
// Reads `region` of the dataset into `out` (row-major, the region's elements of `type`).
void read_hdf5_box(const std::string& path, const std::string& dataset, const Region& region,
                   device::ElementType type, std::span<std::byte> out);
// An attribute of a dataset: a string, or (when `text` is empty) 64-bit integers; one with
// neither is left out.
struct Hdf5Attribute {
  std::string name;
  std::string text;
  std::vector<std::int64_t> numbers;
};

// Creates (or replaces) the file with one dataset of `type` and `shape`, contiguous and with its
// space allocated (not filled) at creation, with `attributes` on it; returns where its elements
// start in the file.
std::uint64_t create_hdf5_dataset(const std::string& path, const std::string& dataset,
                                  device::ElementType type, const std::vector<std::uint64_t>& shape,
                                  const std::vector<Hdf5Attribute>& attributes = {});
// Where the elements of a contiguous dataset start in the file (throws naming the file and the
// dataset if it is not contiguous and allocated).
std::uint64_t hdf5_dataset_offset(const std::string& path, const std::string& dataset);
// Reads `region` of a contiguous dataset whose elements start at `data_offset` and whose shape
// is `shape` into `out`: plain positioned reads of the box's runs, no HDF5 call, as
// write_hdf5_box_at writes them.
void read_hdf5_box_at(const std::string& path, const std::string& dataset,
                      std::uint64_t data_offset, const std::vector<std::uint64_t>& shape,
                      const Region& region, device::ElementType type, std::span<std::byte> out);
// Writes `values` (row-major, the region's elements) into `region` of a dataset made by
// create_hdf5_dataset, whose elements start at `data_offset` in the file and whose shape is
// `shape`: plain positioned writes of the box's runs, no HDF5 call, so any number of processes
// and threads may write disjoint boxes of one file at once (several ranks saving an array).
void write_hdf5_box_at(const std::string& path, const std::string& dataset,
                       std::uint64_t data_offset, const std::vector<std::uint64_t>& shape,
                       const Region& region, device::ElementType type,
                       std::span<const std::byte> values);
// Writes `values` (row-major, the region's elements) into `region` of an existing dataset.
void write_hdf5_box(const std::string& path, const std::string& dataset, const Region& region,
                    device::ElementType type, std::span<const std::byte> values);

}  // namespace strata::store
