#include "combine_kernel.hpp"

#include <algorithm>
#include <span>
#include <string>

namespace strata::node::detail {

namespace {

// The expression combining `a` (into) and `b` (from), in OpenCL C and CUDA alike.
std::string expression(memory::ReduceOp op) {
  switch (op) {
    case memory::ReduceOp::sum:
      return "a + b";
    case memory::ReduceOp::product:
      return "a * b";
    case memory::ReduceOp::min:
      return "b < a ? b : a";
    case memory::ReduceOp::max:
      return "b > a ? b : a";
  }
  return "a";
}

}  // namespace

device::KernelDefinition combine_kernel(memory::ReduceOp op, device::ElementType type) {
  const char* const names[] = {"sum", "product", "min", "max"};
  const std::string name = "strata_combine_" + std::string(names[static_cast<int>(op)]) + "_" +
                           std::string(device::to_string(type));
  const std::string opencl_type(device::opencl_name(type));
  const std::string cuda_type(device::cuda_name(type));
  const std::string body =
      "  if (i < n) {\n    const TYPE a = into[i];\n    const TYPE b = from[i];\n"
      "    into[i] = (TYPE)(" +
      expression(op) + ");\n  }\n}\n";
  const auto with_type = [&body](const std::string& type_name) {
    std::string text = body;
    for (std::size_t at = text.find("TYPE"); at != std::string::npos; at = text.find("TYPE", at))
      text.replace(at, 4, type_name);
    return text;
  };
  const std::size_t element = device::size_of(type);
  return device::KernelDefinition(name)
      .scalar<std::uint32_t>("n")
      .array("into", type, device::ParamAccess::read_write)
      .array("from", type, device::ParamAccess::read)
      .cpu([op, type, element](const device::CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const std::uint64_t end = std::min<std::uint64_t>(block.end.x, n);
        if (block.begin.x >= end) return;
        const std::size_t first = block.begin.x * element;
        const std::size_t bytes = (end - block.begin.x) * element;
        auto* into = block.array<std::byte>(1) + first;
        const auto* from = block.array<std::byte>(2) + first;
        memory::combine(op, type, std::span(into, bytes), std::span(from, bytes));
      })
      .opencl(std::string(type == device::ElementType::f64
                              ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                              : "") +
              "__kernel void " + name + "(uint n, __global " + opencl_type +
              "* into, __global const " + opencl_type +
              "* from) {\n  const size_t i = get_global_id(0);\n" + with_type(opencl_type))
      .cuda("extern \"C\" __global__ void " + name + "(unsigned int n, " + cuda_type +
            "* into, const " + cuda_type +
            "* from) {\n  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;\n" +
            with_type(cuda_type));
}

}  // namespace strata::node::detail
