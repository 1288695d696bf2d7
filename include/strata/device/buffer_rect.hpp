#pragma once
// Rectangular regions of a device buffer, as clEnqueueCopyBufferRect and cudaMemcpy2D take them:
// what a queue's copy_rect_on_device() moves (an n-d box of a chunk is one or more of them).

#include <cstdint>

namespace strata::device {

// Where a region lies in a buffer: its first byte, the distance between its rows and between its
// slices (bytes).
struct BufferRect {
  std::uint64_t offset = 0;
  std::uint64_t row_pitch = 0;
  std::uint64_t slice_pitch = 0;
};

// A region's size: `depth` slices of `height` rows of `width` bytes.
struct RectExtent {
  std::uint64_t width = 0;
  std::uint64_t height = 1;
  std::uint64_t depth = 1;

  std::uint64_t bytes() const { return width * height * depth; }
};

// One past the last byte the region touches (its first byte when it is empty).
inline std::uint64_t rect_end(const BufferRect& rect, const RectExtent& extent) {
  if (extent.bytes() == 0) return rect.offset;
  return rect.offset + (extent.depth - 1) * rect.slice_pitch +
         (extent.height - 1) * rect.row_pitch + extent.width;
}

}  // namespace strata::device
