#pragma once
// One generic mechanism for everything that crosses ranks (plans, control messages, stolen work):
// cereal's portable binary archives. A type is sendable when cereal can serialize it (a
// `serialize(Archive&)` member, or a standard type cereal supports).

#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/array.hpp>
#include <cereal/types/common.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/vector.hpp>
#include <cstddef>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "strata/base/error.hpp"

namespace strata::cluster {

// Bytes that do not decode as the expected type (a truncated or mismatched message).
class DecodeError : public Error {
 public:
  using Error::Error;
};

template <class T>
std::vector<std::byte> encode(const T& value) {
  std::ostringstream out(std::ios::binary);
  {
    cereal::PortableBinaryOutputArchive archive(out);
    archive(value);
  }
  const std::string bytes = std::move(out).str();
  const auto* begin = reinterpret_cast<const std::byte*>(bytes.data());
  return {begin, begin + bytes.size()};
}

// Decodes a value of type T; `what` names the message in the error.
template <class T>
T decode(std::span<const std::byte> bytes, const char* what) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                        std::ios::binary);
  T value{};
  try {
    cereal::PortableBinaryInputArchive archive(in);
    archive(value);
  } catch (const std::exception& e) {
    throw DecodeError(std::string("cannot decode ") + what + " (" + std::to_string(bytes.size()) +
                      " bytes): " + e.what());
  }
  return value;
}

}  // namespace strata::cluster
