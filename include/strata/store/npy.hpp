#pragma once
// NumPy .npy files (format versions 1.0 to 3.0): the header (element type, shape, where the data
// starts) and the data of C-ordered, little-endian arrays of 1 to 3 dimensions — the files a
// scientist's `numpy.save` writes, read and written without NumPy.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/device/element_type.hpp"

namespace strata::store {

struct NpyHeader {
  device::ElementType type = device::ElementType::f64;
  std::vector<std::uint64_t> shape;
  std::uint64_t data_offset = 0;  // bytes before the first element

  std::uint64_t elements() const;
};

// Reads and checks the header; throws naming the file and what was expected (the magic string,
// a little-endian numeric type, C order, 1 to 3 dimensions, as many bytes as the shape needs).
NpyHeader read_npy_header(const std::string& path);
// The header and all the elements' bytes.
std::vector<std::byte> read_npy(const std::string& path, NpyHeader& header);
// Writes a version 1.0 file (its header padded to 64 bytes, as numpy does); the file appears
// complete or not at all (written beside it, then renamed).
void write_npy(const std::string& path, device::ElementType type,
               const std::vector<std::uint64_t>& shape, std::span<const std::byte> data);

}  // namespace strata::store
