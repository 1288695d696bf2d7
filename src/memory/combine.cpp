#include "strata/memory/combine.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
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

// Calls f(T{}) with the C++ type of `type`.
template <class F>
void with_element_type(device::ElementType type, F&& f) {
  using device::ElementType;
  switch (type) {
    case ElementType::i8:
      return f(std::int8_t{});
    case ElementType::u8:
      return f(std::uint8_t{});
    case ElementType::i16:
      return f(std::int16_t{});
    case ElementType::u16:
      return f(std::uint16_t{});
    case ElementType::i32:
      return f(std::int32_t{});
    case ElementType::u32:
      return f(std::uint32_t{});
    case ElementType::i64:
      return f(std::int64_t{});
    case ElementType::u64:
      return f(std::uint64_t{});
    case ElementType::f32:
      return f(float{});
    case ElementType::f64:
      return f(double{});
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
  with_element_type(type, [&]<typename T>(T) { combine_as<T>(op, into, from); });
}

std::array<std::byte, 8> identity(ReduceOp op, device::ElementType type) {
  std::array<std::byte, 8> bytes{};
  with_element_type(type, [&]<typename T>(T) {
    T value{};
    switch (op) {
      case ReduceOp::sum:
        value = T{0};
        break;
      case ReduceOp::product:
        value = T{1};
        break;
      case ReduceOp::min:
        value = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                     : std::numeric_limits<T>::max();
        break;
      case ReduceOp::max:
        value = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                     : std::numeric_limits<T>::lowest();
        break;
    }
    std::memcpy(bytes.data(), &value, sizeof(T));
  });
  return bytes;
}

}  // namespace strata::memory
