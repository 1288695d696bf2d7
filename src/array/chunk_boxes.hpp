#pragma once
// Boxes of chunks for the planner: a region of the array's index space as a memory::Box within a
// chunk (or a temporary) that holds `holder` of it.

#include "strata/array/region.hpp"
#include "strata/memory/box.hpp"

namespace strata::array::detail {

// `region` (inside `holder`) as a box of the dense chunk that holds exactly `holder`.
inline memory::Box box_in(const Region& holder, const Region& region) {
  memory::Box box;
  box.dims = holder.dims;
  for (std::uint32_t d = 0; d < holder.dims; ++d) {
    box.shape[d] = holder.hi[d] - holder.lo[d];
    box.offset[d] = region.lo[d] - holder.lo[d];
    box.extent[d] = region.hi[d] - region.lo[d];
  }
  return box;
}

}  // namespace strata::array::detail
