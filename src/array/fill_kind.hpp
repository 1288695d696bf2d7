#pragma once
// The plan kind "array_fill": sets every element of a chunk to one value on the rank that holds
// it (no bytes travel), which is how arrays are filled and how a new array gets defined contents.

#include <array>
#include <cstdint>

#include "strata/cluster/plan_kinds.hpp"

namespace strata::array::detail {

inline constexpr const char* fill_kind_name = "array_fill";

// The arguments: the element's bytes.
struct Fill {
  std::uint32_t element_bytes = 4;
  std::array<unsigned char, 8> value{};

  template <class Archive>
  void serialize(Archive& archive) {
    archive(element_bytes, value);
  }
};

void fill_kind(cluster::PlanContext& context, const cluster::PlanOp& op);

}  // namespace strata::array::detail
