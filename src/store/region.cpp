#include "strata/store/region.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "strata/base/error.hpp"

namespace strata::store {

Shape Shape::of(std::span<const std::uint64_t> extents, const std::string& what) {
  if (extents.empty() || extents.size() > 3) {
    throw Error(fmt::format("{} has 1 to 3 dimensions, not {}", what, extents.size()));
  }
  Shape shape;
  shape.dims = static_cast<std::uint32_t>(extents.size());
  for (std::size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] == 0) throw Error(fmt::format("{} has an empty dimension {}", what, d));
    shape.extent[d] = extents[d];
  }
  return shape;
}

std::uint64_t Shape::elements() const {
  std::uint64_t count = 1;
  for (std::uint32_t d = 0; d < dims; ++d)
    count *= extent[d];
  return count;
}

std::string Shape::describe() const {
  std::string text;
  for (std::uint32_t d = 0; d < dims; ++d)
    text += fmt::format("{}{}", d == 0 ? "" : "x", extent[d]);
  return text;
}

Region Region::whole(const Shape& shape) {
  Region region;
  region.dims = shape.dims;
  region.hi = shape.extent;
  return region;
}

Region Region::of(std::span<const std::uint64_t> lo, std::span<const std::uint64_t> hi) {
  if (lo.size() != hi.size() || lo.empty() || lo.size() > 3) {
    throw Error(
        fmt::format("a region has 1 to 3 dimensions, with as many lower as upper bounds "
                    "(given {} and {})",
                    lo.size(), hi.size()));
  }
  Region region;
  region.dims = static_cast<std::uint32_t>(lo.size());
  for (std::size_t d = 0; d < lo.size(); ++d) {
    region.lo[d] = lo[d];
    region.hi[d] = std::max(lo[d], hi[d]);
  }
  return region;
}

bool Region::empty() const {
  for (std::uint32_t d = 0; d < dims; ++d)
    if (hi[d] <= lo[d]) return true;
  return false;
}

std::uint64_t Region::elements() const {
  if (empty()) return 0;
  std::uint64_t count = 1;
  for (std::uint32_t d = 0; d < dims; ++d)
    count *= hi[d] - lo[d];
  return count;
}

std::array<std::uint64_t, 3> Region::extent() const {
  std::array<std::uint64_t, 3> extent{1, 1, 1};
  for (std::uint32_t d = 0; d < dims; ++d)
    extent[d] = hi[d] > lo[d] ? hi[d] - lo[d] : 0;
  return extent;
}

bool Region::contains(const Region& other) const {
  if (other.empty()) return true;
  for (std::uint32_t d = 0; d < dims; ++d)
    if (other.lo[d] < lo[d] || other.hi[d] > hi[d]) return false;
  return true;
}

bool Region::within(const Shape& shape) const {
  return Region::whole(shape).contains(*this);
}

std::optional<Region> Region::intersect(const Region& other) const {
  Region both;
  both.dims = dims;
  for (std::uint32_t d = 0; d < dims; ++d) {
    both.lo[d] = std::max(lo[d], other.lo[d]);
    both.hi[d] = std::min(hi[d], other.hi[d]);
    if (both.hi[d] <= both.lo[d]) return std::nullopt;
  }
  return both;
}

std::vector<Region> Region::minus(const Region& other) const {
  if (empty()) return {};
  const std::optional<Region> both = intersect(other);
  if (!both) return {*this};
  // Peels off, dimension by dimension, the slabs below and above `other`; what is left of this
  // region then lies within it.
  std::vector<Region> parts;
  Region left = *this;
  for (std::uint32_t d = 0; d < dims; ++d) {
    if (left.lo[d] < both->lo[d]) {
      Region below = left;
      below.hi[d] = both->lo[d];
      parts.push_back(below);
    }
    if (both->hi[d] < left.hi[d]) {
      Region above = left;
      above.lo[d] = both->hi[d];
      parts.push_back(above);
    }
    left.lo[d] = both->lo[d];
    left.hi[d] = both->hi[d];
  }
  return parts;
}

std::string Region::describe() const {
  std::string text = "[";
  for (std::uint32_t d = 0; d < dims; ++d)
    text += fmt::format("{}{}:{}", d == 0 ? "" : ", ", lo[d], hi[d]);
  return text + "]";
}

}  // namespace strata::store
