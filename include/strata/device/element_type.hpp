#pragma once
// Element types of kernel parameters and device arrays, with their sizes and source-code names.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace strata::device {

// The element type of a scalar parameter or of an array's elements.
enum class ElementType : std::uint8_t { i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 };

std::size_t size_of(ElementType type);
// The type's name in OpenCL C and CUDA source ("float", "int", "ulong" / "unsigned long long").
std::string_view opencl_name(ElementType type);
std::string_view cuda_name(ElementType type);
// A short name for messages: "f32", "i64", ...
std::string_view to_string(ElementType type);

template <typename T>
constexpr ElementType element_type_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, std::int8_t>)
    return ElementType::i8;
  else if constexpr (std::is_same_v<U, std::uint8_t>)
    return ElementType::u8;
  else if constexpr (std::is_same_v<U, std::int16_t>)
    return ElementType::i16;
  else if constexpr (std::is_same_v<U, std::uint16_t>)
    return ElementType::u16;
  else if constexpr (std::is_same_v<U, std::int32_t>)
    return ElementType::i32;
  else if constexpr (std::is_same_v<U, std::uint32_t>)
    return ElementType::u32;
  else if constexpr (std::is_same_v<U, std::int64_t>)
    return ElementType::i64;
  else if constexpr (std::is_same_v<U, std::uint64_t>)
    return ElementType::u64;
  else if constexpr (std::is_same_v<U, float>)
    return ElementType::f32;
  else if constexpr (std::is_same_v<U, double>)
    return ElementType::f64;
  else
    static_assert(sizeof(T) == 0, "unsupported kernel element type");
}

}  // namespace strata::device
