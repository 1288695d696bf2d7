#include "strata/store/data_key.hpp"

#include <fmt/format.h>

namespace strata::store {

std::string DataKey::describe() const {
  return fmt::format("'{}' ({}, t={}, v={})", name, type.empty() ? "untyped" : type, timestamp,
                     version);
}

}  // namespace strata::store
