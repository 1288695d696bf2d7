// The libFuzzer target of the annotation parser (built with clang and STRATA_FUZZ=ON; see
// docs/arrays.md): a crash, a sanitizer report or an escaping exception is a finding.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "annotation_fuzz_one.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  strata::array::fuzz::fuzz_one(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
