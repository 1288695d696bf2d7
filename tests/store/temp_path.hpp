#pragma once
// Files of the store tests go in GoogleTest's temporary directory.

#include <gtest/gtest.h>

#include <string>

namespace strata::store::testing {

inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + name;
}

}  // namespace strata::store::testing
