#pragma once
// Shared by the store tests: files in GoogleTest's temporary directory, 2-D boxes in one line.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "strata/store/region.hpp"

namespace strata::cluster {
class Driver;
}

namespace strata::store::testing {

// The driver of the distributed store's test program (null in the others).
extern cluster::Driver* the_driver;

inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + name;
}

// Rows [r0, r1), columns [c0, c1).
inline Region box2(std::uint64_t r0, std::uint64_t r1, std::uint64_t c0, std::uint64_t c1) {
  return Region::of(std::array<std::uint64_t, 2>{r0, c0}, std::array<std::uint64_t, 2>{r1, c1});
}

}  // namespace strata::store::testing
