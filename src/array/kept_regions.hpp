#pragma once
// Regions of an array assembled from several chunks for one launch's read, kept for the next
// launches on the same rank (the lightning paper drops them after each launch) until something
// writes the elements they copy; the least recently used go beyond a limit.

#include <compare>
#include <cstdint>
#include <map>
#include <optional>

#include "strata/array/array.hpp"
#include "strata/cluster/driver.hpp"

namespace strata::array::detail {

class KeptRegions {
 public:
  KeptRegions(cluster::Driver& driver, std::size_t limit) : driver_(driver), limit_(limit) {}
  KeptRegions(const KeptRegions&) = delete;
  KeptRegions& operator=(const KeptRegions&) = delete;
  // Drops what is kept (after what is planned on it).
  ~KeptRegions();

  // The chunk that holds `region` of `array` on `rank`, if one is kept.
  std::optional<cluster::ChunkRef> find(const Array& array, int rank, const Region& region);
  // Keeps `chunk`, which holds `region` of `array` on `rank`; drops the least recently used one
  // when more than the limit are kept.
  void keep(const Array& array, int rank, const Region& region, cluster::ChunkRef chunk);
  // Drops the kept regions of `array` that share elements with `written`.
  void forget(const Array& array, const Region& written);
  // Drops every kept region of `array`.
  void forget(const Array& array);
  std::size_t size() const { return kept_.size(); }

 private:
  struct Key {
    std::uintptr_t array;  // the record's address
    int rank;
    std::array<std::uint64_t, 3> lo;
    std::array<std::uint64_t, 3> hi;
    auto operator<=>(const Key&) const = default;
  };
  struct Kept {
    cluster::ChunkRef chunk;
    Region region;
    std::uint64_t last_use = 0;
  };
  template <class Gone>
  void forget_if(const Array& array, Gone gone);

  cluster::Driver& driver_;
  std::size_t limit_;
  std::map<Key, Kept> kept_;
  std::uint64_t clock_ = 0;
};

}  // namespace strata::array::detail
