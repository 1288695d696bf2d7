#pragma once
// Boxes: n-d (1 to 3) sub-regions of a chunk whose elements lie row-major (the last dimension
// varies fastest), with an offset, extents and a step per dimension (strided boxes), and the copy
// of a box of one chunk into a box of the same extents in another — what assembles a region from
// several chunks and scatters it back.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/device/buffer_rect.hpp"

namespace strata::memory {

struct Box {
  std::uint32_t dims = 1;
  std::array<std::uint64_t, 3> shape{1, 1, 1};   // the chunk's extents, in elements
  std::array<std::uint64_t, 3> offset{0, 0, 0};  // the box's first element
  std::array<std::uint64_t, 3> extent{1, 1, 1};  // elements of the box per dimension
  std::array<std::uint64_t, 3> step{1, 1, 1};    // distance between its elements, per dimension

  // The whole of a dense chunk of the given extents.
  static Box whole(std::span<const std::uint64_t> shape);
  // `extent` elements from `offset` in a chunk of extents `shape` (all of `dims` dimensions).
  static Box of(std::span<const std::uint64_t> shape, std::span<const std::uint64_t> offset,
                std::span<const std::uint64_t> extent);

  std::uint64_t elements() const;
  std::uint64_t chunk_elements() const;
  // Throws naming `what` if the box leaves its chunk, has a zero step or more than 3
  // dimensions, or the chunk's extents do not make `chunk_bytes` of `element_bytes` elements.
  void check(std::uint64_t element_bytes, std::uint64_t chunk_bytes, const std::string& what) const;
  std::string describe() const;  // "[2:6, 0:8:2] of 8x8"

  template <class Archive>
  void serialize(Archive& archive) {
    archive(dims, shape, offset, extent, step);
  }
};

// Copies the elements of `from_box` in `from` to the elements of `to_box` in `to`, in row-major
// order of the boxes. The boxes must have the same extents (throws otherwise, and on a box that
// leaves its chunk).
void copy_box(std::span<const std::byte> from, const Box& from_box, std::span<std::byte> to,
              const Box& to_box, std::uint32_t element_bytes);

// One rectangular piece of a box copy, as a device queue moves it (Queue::copy_rect_on_device):
// the source's and the target's region (offsets from the chunks' first bytes) and its extent.
struct BoxRectCopy {
  device::BufferRect from;
  device::BufferRect to;
  device::RectExtent extent;
};

// The rectangular copies that move `from_box` into `to_box` (the same extents; throws
// otherwise): one where both boxes' last dimensions are dense, else one per index of their
// first dimension (rows of single elements).
std::vector<BoxRectCopy> box_rect_copies(const Box& from_box, const Box& to_box,
                                         std::uint32_t element_bytes);

}  // namespace strata::memory
