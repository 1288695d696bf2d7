#include "strata/memory/combine.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "strata/base/error.hpp"

namespace strata::memory {

std::string_view to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return "+";
    case ReduceOp::product:
      return "*";
    case ReduceOp::min:
      return "min";
    case ReduceOp::max:
      return "max";
  }
  return "?";
}

ReduceOp parse_reduce_op(std::string_view text) {
  if (text == "+" || text == "sum") return ReduceOp::sum;
  if (text == "*" || text == "product") return ReduceOp::product;
  if (text == "min") return ReduceOp::min;
  if (text == "max") return ReduceOp::max;
  throw Error("unknown reduction '" + std::string(text) + "' (expected +, *, min or max)");
}

namespace {

template <typename T>
void combine_as(ReduceOp op, std::span<std::byte> into, std::span<const std::byte> from) {
  const std::size_t n = into.size() / sizeof(T);
  // memcpy in and out: chunk bytes need not be aligned for T.
  constexpr std::size_t block = 1024;
  T a[block];
  T b[block];
  for (std::size_t at = 0; at < n; at += block) {
    const std::size_t count = std::min(block, n - at);
    std::memcpy(a, into.data() + at * sizeof(T), count * sizeof(T));
    std::memcpy(b, from.data() + at * sizeof(T), count * sizeof(T));
    switch (op) {
      case ReduceOp::sum:
        for (std::size_t i = 0; i < count; ++i)
          a[i] = static_cast<T>(a[i] + b[i]);
        break;
      case ReduceOp::product:
        for (std::size_t i = 0; i < count; ++i)
          a[i] = static_cast<T>(a[i] * b[i]);
        break;
      case ReduceOp::min:
        for (std::size_t i = 0; i < count; ++i)
          a[i] = std::min(a[i], b[i]);
        break;
      case ReduceOp::max:
        for (std::size_t i = 0; i < count; ++i)
          a[i] = std::max(a[i], b[i]);
        break;
    }
    std::memcpy(into.data() + at * sizeof(T), a, count * sizeof(T));
  }
}

}  // namespace

void combine(ReduceOp op, device::ElementType type, std::span<std::byte> into,
             std::span<const std::byte> from) {
  const std::size_t element = device::size_of(type);
  if (into.size() != from.size() || into.size() % element != 0) {
    throw Error("combining " + std::to_string(from.size()) + " bytes into " +
                std::to_string(into.size()) + " with " + std::string(to_string(op)) + " over " +
                std::string(device::to_string(type)) + ": the sizes differ or are not whole " +
                "elements");
  }
  using device::ElementType;
  switch (type) {
    case ElementType::i8:
      return combine_as<std::int8_t>(op, into, from);
    case ElementType::u8:
      return combine_as<std::uint8_t>(op, into, from);
    case ElementType::i16:
      return combine_as<std::int16_t>(op, into, from);
    case ElementType::u16:
      return combine_as<std::uint16_t>(op, into, from);
    case ElementType::i32:
      return combine_as<std::int32_t>(op, into, from);
    case ElementType::u32:
      return combine_as<std::uint32_t>(op, into, from);
    case ElementType::i64:
      return combine_as<std::int64_t>(op, into, from);
    case ElementType::u64:
      return combine_as<std::uint64_t>(op, into, from);
    case ElementType::f32:
      return combine_as<float>(op, into, from);
    case ElementType::f64:
      return combine_as<double>(op, into, from);
  }
}

}  // namespace strata::memory
