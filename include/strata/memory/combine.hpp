#pragma once
// Reduction operators over arrays of elements: what combines partial results of a reduction.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "strata/device/element_type.hpp"

namespace strata::memory {

enum class ReduceOp : std::uint8_t { sum, product, min, max };

std::string_view to_string(ReduceOp op);
// "+", "*", "min" or "max" (and "sum", "product"); throws naming the text otherwise.
ReduceOp parse_reduce_op(std::string_view text);

// into[i] = into[i] op from[i] for every element of `type`; the spans must have the same size, a
// multiple of the element size (throws otherwise).
void combine(ReduceOp op, device::ElementType type, std::span<std::byte> into,
             std::span<const std::byte> from);

// The element x of `type` with x op y == y for every y (0, 1, the largest and the smallest value,
// infinities for floats), in the first size_of(type) bytes.
std::array<std::byte, 8> identity(ReduceOp op, device::ElementType type);

}  // namespace strata::memory
