#pragma once
// ArrayKernel: a kernel for distributed launches — its definition (a C++ function over global
// indices, OpenCL C or CUDA in the virtual-blocks style of the lightning paper's three changes)
// with the annotation that says which elements of each array argument its threads access.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "strata/array/annotation.hpp"
#include "strata/array/array.hpp"
#include "strata/device/kernel.hpp"

namespace strata::array {

class ArrayKernel {
 public:
  // Parses `annotation` and checks it against the signature: every access names an array
  // parameter, every array parameter has an access, its rank matches, every scalar in an index
  // is an integer scalar parameter; OpenCL and CUDA sources use KernelStyle::virtual_blocks.
  // Errors name the kernel and quote the annotation.
  ArrayKernel(device::KernelDefinition definition, std::string_view annotation);

  const device::KernelDefinition& definition() const { return definition_; }
  const Annotation& annotation() const { return annotation_; }
  const std::string& name() const { return definition_.name(); }
  // The annotation's access to parameter `param` (an array parameter).
  const Access& access_of(std::size_t param) const;
  // Its position in annotation().accesses (and in the access regions computed from it).
  std::size_t access_index(std::size_t param) const { return access_of_param_.at(param); }

 private:
  device::KernelDefinition definition_;
  Annotation annotation_;
  std::vector<std::size_t> access_of_param_;  // per parameter: index into accesses (arrays)
};

// The threads of a distributed launch: per dimension (1 to 3), the threads and the block size.
struct Grid {
  std::vector<std::uint64_t> threads;
  std::vector<std::uint64_t> block;
};

// One argument of a launch, in parameter order: an array, or a scalar's value.
class Argument {
 public:
  Argument(Array array) : value_(std::move(array)) {}  // NOLINT(google-explicit-constructor)
  template <typename T>
  static Argument value(T v) {
    static_assert(sizeof(T) <= 8);
    Scalar scalar;
    scalar.type = device::element_type_of<T>();
    std::memcpy(scalar.bytes.data(), &v, sizeof(T));
    if constexpr (std::is_integral_v<T>) scalar.integer = static_cast<std::int64_t>(v);
    return Argument(scalar);
  }

  struct Scalar {
    device::ElementType type = device::ElementType::i32;
    std::array<unsigned char, 8> bytes{};
    std::int64_t integer = 0;  // integer scalars: the value annotations use
  };
  bool is_array() const { return std::holds_alternative<Array>(value_); }
  const Array& array() const { return std::get<Array>(value_); }
  const Scalar& scalar() const { return std::get<Scalar>(value_); }

 private:
  explicit Argument(Scalar scalar) : value_(scalar) {}
  std::variant<Array, Scalar> value_;
};

}  // namespace strata::array
