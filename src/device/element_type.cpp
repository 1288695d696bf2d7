#include "strata/device/element_type.hpp"

#include <array>

namespace strata::device {
namespace {

struct TypeNames {
  std::size_t size;
  std::string_view opencl;
  std::string_view cuda;
  std::string_view short_name;
};

constexpr std::array<TypeNames, 10> names{{
    {1, "char", "signed char", "i8"},
    {1, "uchar", "unsigned char", "u8"},
    {2, "short", "short", "i16"},
    {2, "ushort", "unsigned short", "u16"},
    {4, "int", "int", "i32"},
    {4, "uint", "unsigned int", "u32"},
    {8, "long", "long long", "i64"},
    {8, "ulong", "unsigned long long", "u64"},
    {4, "float", "float", "f32"},
    {8, "double", "double", "f64"},
}};

const TypeNames& of(ElementType type) {
  return names[static_cast<std::size_t>(type)];
}

}  // namespace

std::size_t size_of(ElementType type) {
  return of(type).size;
}
std::string_view opencl_name(ElementType type) {
  return of(type).opencl;
}
std::string_view cuda_name(ElementType type) {
  return of(type).cuda;
}
std::string_view to_string(ElementType type) {
  return of(type).short_name;
}

}  // namespace strata::device
