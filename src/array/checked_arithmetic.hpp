#pragma once
// Index arithmetic that notices overflow: results stay within ±(2^63 - 1), so that every value
// can be negated. Private to the annotation code.

#include <cstdint>
#include <limits>

namespace strata::array::detail {

inline bool in_range(std::int64_t value) {
  return value != std::numeric_limits<std::int64_t>::min();
}

// Each stores a + b (a * b) in `result` and returns false when it overflows.
inline bool checked_add(std::int64_t a, std::int64_t b, std::int64_t& result) {
  return !__builtin_add_overflow(a, b, &result) && in_range(result);
}
inline bool checked_multiply(std::int64_t a, std::int64_t b, std::int64_t& result) {
  return !__builtin_mul_overflow(a, b, &result) && in_range(result);
}

}  // namespace strata::array::detail
