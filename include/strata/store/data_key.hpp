#pragma once
// The key of stored data: a data region's name, its kind ("pixels", "mask", "objects"), and the
// timestamp and version that tell its states apart (the region-templates paper's identifier).

#include <compare>
#include <cstdint>
#include <string>

namespace strata::store {

struct DataKey {
  std::string name;
  std::string type;
  std::int64_t timestamp = 0;
  std::int64_t version = 0;

  std::string describe() const;  // "'tile-3' (mask, t=0, v=1)"
  auto operator<=>(const DataKey&) const = default;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(name, type, timestamp, version);
  }
};

}  // namespace strata::store
