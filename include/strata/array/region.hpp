#pragma once
// An array's shape and regions are the store's (strata/store/region.hpp): the same boxes index
// arrays' chunks and stored data.

#include "strata/store/region.hpp"

namespace strata::array {

using store::Region;
using store::Shape;

}  // namespace strata::array
