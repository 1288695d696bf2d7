#include "strata/array/array_kernel.hpp"

#include <fmt/format.h>

#include "strata/base/error.hpp"
#include "strata/device/device.hpp"

namespace strata::array {
namespace {

bool is_integer(device::ElementType type) {
  return type != device::ElementType::f32 && type != device::ElementType::f64;
}

}  // namespace

ArrayKernel::ArrayKernel(device::KernelDefinition definition, std::string_view annotation)
    : definition_(std::move(definition)), annotation_(parse_annotation(annotation)) {
  const auto fail = [&](const std::string& what) {
    throw Error(fmt::format("kernel '{}', annotation '{}': {}", definition_.name(),
                            annotation_.text, what));
  };
  const auto& params = definition_.params();
  access_of_param_.assign(params.size(), annotation_.accesses.size());
  for (std::size_t a = 0; a < annotation_.accesses.size(); ++a) {
    const Access& access = annotation_.accesses[a];
    std::size_t found = params.size();
    for (std::size_t p = 0; p < params.size(); ++p)
      if (params[p].name == access.array) found = p;
    if (found == params.size()) fail("'" + access.array + "' is not a parameter of the kernel");
    if (!params[found].is_array) fail("'" + access.array + "' is a scalar parameter, not an array");
    if (static_cast<std::size_t>(params[found].rank) != access.indices.size()) {
      fail(fmt::format("array '{}' has {} dimension(s) but is indexed with {}", access.array,
                       params[found].rank, access.indices.size()));
    }
    access_of_param_[found] = a;
  }
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (params[p].is_array && access_of_param_[p] == annotation_.accesses.size()) {
      fail("array parameter '" + params[p].name + "' has no access in the annotation");
    }
  }
  const auto check_expression = [&](const AffineExpression& expression) {
    for (const AffineTerm& term : expression.terms) {
      if (term.scalar.empty()) continue;
      bool known = false;
      for (const auto& param : params) {
        if (param.name != term.scalar) continue;
        if (param.is_array || !is_integer(param.type)) {
          fail("'" + term.scalar + "' in an index must be an integer scalar parameter");
        }
        known = true;
      }
      if (!known) fail("'" + term.scalar + "' is not a parameter of the kernel");
    }
  };
  for (const Access& access : annotation_.accesses) {
    for (const Index& index : access.indices) {
      if (const auto* expression = std::get_if<AffineExpression>(&index)) {
        check_expression(*expression);
      } else {
        const Slice& slice = std::get<Slice>(index);
        if (slice.lower) check_expression(*slice.lower);
        if (slice.upper) check_expression(*slice.upper);
      }
    }
  }
  const auto styled = [&](device::BackendKind backend, device::KernelStyle style,
                          const char* language) {
    if (definition_.implements(backend) && style != device::KernelStyle::virtual_blocks) {
      throw Error(
          fmt::format("kernel '{}': its {} source must use KernelStyle::virtual_blocks for "
                      "distributed launches (docs/arrays.md: three changes)",
                      definition_.name(), language));
    }
  };
  styled(device::BackendKind::opencl, definition_.opencl_style(), "OpenCL");
  styled(device::BackendKind::cuda, definition_.cuda_style(), "CUDA");
}

const Access& ArrayKernel::access_of(std::size_t param) const {
  return annotation_.accesses.at(access_of_param_.at(param));
}

}  // namespace strata::array
