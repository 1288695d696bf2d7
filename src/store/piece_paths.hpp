#pragma once
// The names of the HDF5 box store's files: one directory per key, one file per stored box named
// by its write's sequence number, element type and box —
// `<name>/<type>/t<timestamp>.v<version>/<sequence>.<element type>.<lo>-<hi>_<lo>-<hi>.h5` —
// so that opening a store finds every box and its order from the names alone.

#include <cstdint>
#include <optional>
#include <string>

#include "strata/store/box_store.hpp"

namespace strata::store::detail {

struct PiecePath {
  DataKey key;
  Region box;
  device::ElementType type = device::ElementType::u8;
  std::uint64_t sequence = 0;
};

// The file's path relative to the store's directory. Characters of the name and type other than
// letters, digits, '-' and '_' are written as %XX.
std::string relative_path_of(const PiecePath& piece);
// What a relative path made by relative_path_of() says; nullopt for any other path.
std::optional<PiecePath> parse_relative_path(const std::string& path);

}  // namespace strata::store::detail
