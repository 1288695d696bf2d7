#include "strata/memory/box.hpp"

#include <cstring>

#include "strata/base/error.hpp"

namespace strata::memory {

Box Box::whole(std::span<const std::uint64_t> shape) {
  const std::uint64_t zeros[3] = {0, 0, 0};
  return of(shape, std::span(zeros, shape.size()), shape);
}

Box Box::of(std::span<const std::uint64_t> shape, std::span<const std::uint64_t> offset,
            std::span<const std::uint64_t> extent) {
  if (shape.empty() || shape.size() > 3 || offset.size() != shape.size() ||
      extent.size() != shape.size()) {
    throw Error(
        "a box has 1 to 3 dimensions, each with an extent of the chunk, an offset and an "
        "extent of the box (got " +
        std::to_string(shape.size()) + ", " + std::to_string(offset.size()) + " and " +
        std::to_string(extent.size()) + ")");
  }
  Box box;
  box.dims = static_cast<std::uint32_t>(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    box.shape[d] = shape[d];
    box.offset[d] = offset[d];
    box.extent[d] = extent[d];
  }
  return box;
}

std::uint64_t Box::elements() const {
  std::uint64_t n = 1;
  for (std::uint32_t d = 0; d < dims; ++d)
    n *= extent[d];
  return n;
}

std::uint64_t Box::chunk_elements() const {
  std::uint64_t n = 1;
  for (std::uint32_t d = 0; d < dims; ++d)
    n *= shape[d];
  return n;
}

std::string Box::describe() const {
  std::string text = "[";
  std::string chunk;
  for (std::uint32_t d = 0; d < dims; ++d) {
    if (d > 0) {
      text += ", ";
      chunk += "x";
    }
    text += std::to_string(offset[d]) + ":" + std::to_string(offset[d] + extent[d] * step[d]);
    if (step[d] != 1) text += ":" + std::to_string(step[d]);
    chunk += std::to_string(shape[d]);
  }
  return text + "] of " + chunk;
}

void Box::check(std::uint64_t element_bytes, std::uint64_t chunk_bytes,
                const std::string& what) const {
  if (dims < 1 || dims > 3) {
    throw Error(what + ": a box has 1 to 3 dimensions, not " + std::to_string(dims));
  }
  if (chunk_elements() * element_bytes != chunk_bytes) {
    throw Error(what + ": box " + describe() + " of " + std::to_string(element_bytes) +
                "-byte elements is " + std::to_string(chunk_elements() * element_bytes) +
                " bytes of chunk, but the chunk has " + std::to_string(chunk_bytes));
  }
  for (std::uint32_t d = 0; d < dims; ++d) {
    if (step[d] == 0) throw Error(what + ": box " + describe() + " has a step of 0");
    if (extent[d] == 0) continue;
    const std::uint64_t last = offset[d] + (extent[d] - 1) * step[d];
    if (last >= shape[d]) {
      throw Error(what + ": box " + describe() + " leaves its chunk in dimension " +
                  std::to_string(d) + " (element " + std::to_string(last) + " of " +
                  std::to_string(shape[d]) + ")");
    }
  }
}

namespace {

// The element distances of a box's dimensions, padded to 3 (leading dimensions of extent 1).
struct Walk {
  std::array<std::uint64_t, 3> extent{1, 1, 1};
  std::array<std::uint64_t, 3> stride{0, 0, 0};  // in elements, step included
  std::uint64_t first = 0;
};

Walk walk_of(const Box& box) {
  Walk walk;
  const std::uint32_t pad = 3 - box.dims;
  std::uint64_t row = 1;
  for (std::uint32_t d = box.dims; d-- > 0;) {
    walk.extent[pad + d] = box.extent[d];
    walk.stride[pad + d] = row * box.step[d];
    walk.first += box.offset[d] * row;
    row *= box.shape[d];
  }
  return walk;
}

}  // namespace

void copy_box(std::span<const std::byte> from, const Box& from_box, std::span<std::byte> to,
              const Box& to_box, std::uint32_t element_bytes) {
  from_box.check(element_bytes, from.size(), "copying a box");
  to_box.check(element_bytes, to.size(), "copying into a box");
  const Walk source = walk_of(from_box);
  const Walk target = walk_of(to_box);
  if (source.extent != target.extent) {
    throw Error("copying box " + from_box.describe() + " into box " + to_box.describe() +
                ": the extents differ");
  }
  if (from_box.elements() == 0) return;
  // The innermost dimension goes as one memcpy where both sides are contiguous in it.
  const bool rows = source.stride[2] == 1 && target.stride[2] == 1;
  const std::uint64_t e = element_bytes;
  for (std::uint64_t i = 0; i < source.extent[0]; ++i) {
    for (std::uint64_t j = 0; j < source.extent[1]; ++j) {
      const std::uint64_t s = source.first + i * source.stride[0] + j * source.stride[1];
      const std::uint64_t t = target.first + i * target.stride[0] + j * target.stride[1];
      if (rows) {
        std::memcpy(to.data() + t * e, from.data() + s * e, source.extent[2] * e);
        continue;
      }
      for (std::uint64_t k = 0; k < source.extent[2]; ++k) {
        std::memcpy(to.data() + (t + k * target.stride[2]) * e,
                    from.data() + (s + k * source.stride[2]) * e, e);
      }
    }
  }
}

std::vector<BoxRectCopy> box_rect_copies(const Box& from_box, const Box& to_box,
                                         std::uint32_t element_bytes) {
  const Walk source = walk_of(from_box);
  const Walk target = walk_of(to_box);
  if (source.extent != target.extent) {
    throw Error("copying box " + from_box.describe() + " into box " + to_box.describe() +
                ": the extents differ");
  }
  std::vector<BoxRectCopy> copies;
  if (from_box.elements() == 0) return copies;
  const std::uint64_t e = element_bytes;
  if (source.stride[2] == 1 && target.stride[2] == 1) {
    // Rows of the last dimension, slices of the first.
    copies.push_back({{source.first * e, source.stride[1] * e, source.stride[0] * e},
                      {target.first * e, target.stride[1] * e, target.stride[0] * e},
                      {source.extent[2] * e, source.extent[1], source.extent[0]}});
    return copies;
  }
  // Elements of the last dimension are rows of one element; the middle dimension makes slices.
  for (std::uint64_t i = 0; i < source.extent[0]; ++i) {
    copies.push_back(
        {{(source.first + i * source.stride[0]) * e, source.stride[2] * e, source.stride[1] * e},
         {(target.first + i * target.stride[0]) * e, target.stride[2] * e, target.stride[1] * e},
         {e, source.extent[2], source.extent[1]}});
  }
  return copies;
}

}  // namespace strata::memory
