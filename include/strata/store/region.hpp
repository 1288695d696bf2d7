#pragma once
// Regions: dense n-d (1 to 3) boxes of an index space, [lo, hi) per dimension — the extent of an
// array's chunk or of a superblock's access region, a stored box of a data region, and their
// intersections.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::store {

// An array's extents: `dims` of them used, the rest 1.
struct Shape {
  std::uint32_t dims = 1;
  std::array<std::uint64_t, 3> extent{1, 1, 1};

  // Throws naming `what` unless 1 to 3 extents, each at least 1.
  static Shape of(std::span<const std::uint64_t> extents, const std::string& what = "an array");
  std::uint64_t elements() const;
  std::string describe() const;  // "1000x800"
  bool operator==(const Shape&) const = default;
};

struct Region {
  std::uint32_t dims = 1;
  std::array<std::uint64_t, 3> lo{0, 0, 0};
  std::array<std::uint64_t, 3> hi{1, 1, 1};  // exclusive

  // All of `shape`.
  static Region whole(const Shape& shape);
  // [lo, hi) in each of the `lo.size()` dimensions (the same number as `hi`).
  static Region of(std::span<const std::uint64_t> lo, std::span<const std::uint64_t> hi);

  bool empty() const;
  std::uint64_t elements() const;
  std::array<std::uint64_t, 3> extent() const;  // hi - lo per dimension
  bool contains(const Region& other) const;     // every element of `other` (empty: always)
  bool within(const Shape& shape) const;
  // The elements in both; nullopt when none.
  std::optional<Region> intersect(const Region& other) const;
  // The elements not in `other`, as at most 2 x dims disjoint regions (none: `other` covers it).
  std::vector<Region> minus(const Region& other) const;
  std::string describe() const;  // "[0:4, 2:8]"
  bool operator==(const Region&) const = default;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(dims, lo, hi);
  }
};

}  // namespace strata::store
