#include "kept_regions.hpp"

#include <algorithm>

namespace strata::array::detail {
namespace {

std::uintptr_t address(const Array& array) {
  return reinterpret_cast<std::uintptr_t>(&array.record());
}

}  // namespace

KeptRegions::~KeptRegions() {
  try {
    for (const auto& [key, kept] : kept_)
      driver_.destroy(kept.chunk);
  } catch (const std::exception&) {
    // A failed run: its chunks go with it.
  }
}

std::optional<cluster::ChunkRef> KeptRegions::find(const Array& array, int rank,
                                                   const Region& region) {
  const auto found = kept_.find(Key{address(array), rank, region.lo, region.hi});
  if (found == kept_.end()) return std::nullopt;
  found->second.last_use = ++clock_;
  return found->second.chunk;
}

void KeptRegions::keep(const Array& array, int rank, const Region& region,
                       cluster::ChunkRef chunk) {
  kept_.insert_or_assign(Key{address(array), rank, region.lo, region.hi},
                         Kept{chunk, region, ++clock_});
  if (kept_.size() <= limit_) return;
  const auto oldest = std::min_element(
      kept_.begin(), kept_.end(),
      [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
  driver_.destroy(oldest->second.chunk);
  kept_.erase(oldest);
}

template <class Gone>
void KeptRegions::forget_if(const Array& array, Gone gone) {
  const std::uintptr_t record = address(array);
  for (auto at = kept_.begin(); at != kept_.end();) {
    if (at->first.array == record && gone(at->second.region)) {
      driver_.destroy(at->second.chunk);
      at = kept_.erase(at);
    } else {
      ++at;
    }
  }
}

void KeptRegions::forget(const Array& array, const Region& written) {
  forget_if(array, [&](const Region& held) { return held.intersect(written).has_value(); });
}

void KeptRegions::forget(const Array& array) {
  forget_if(array, [](const Region&) { return true; });
}

}  // namespace strata::array::detail
