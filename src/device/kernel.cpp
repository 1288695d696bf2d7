#include "strata/device/kernel.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "strata/device/device.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

const char* describe(const KernelParam& param) {
  return param.is_array ? "array" : "scalar";
}

}  // namespace

KernelDefinition& KernelDefinition::scalar(std::string param, ElementType type) {
  params_.push_back(KernelParam{std::move(param), false, type, ParamAccess::read, 0});
  return *this;
}

KernelDefinition& KernelDefinition::array(std::string param, ElementType type, ParamAccess access,
                                          int rank) {
  if (rank < 1 || rank > 3) {
    throw Error(fmt::format("kernel '{}': array parameter '{}' has rank {}; ranks are 1 to 3",
                            name_, param, rank));
  }
  params_.push_back(KernelParam{std::move(param), true, type, access, rank});
  return *this;
}

KernelDefinition& KernelDefinition::cpu(CpuKernelFunction function, CpuCalls calls) {
  cpu_ = std::move(function);
  cpu_calls_ = calls;
  return *this;
}

KernelDefinition& KernelDefinition::opencl(std::string source, KernelStyle style) {
  opencl_ = std::move(source);
  opencl_style_ = style;
  return *this;
}

KernelDefinition& KernelDefinition::cuda(std::string source, KernelStyle style) {
  cuda_ = std::move(source);
  cuda_style_ = style;
  return *this;
}

KernelDefinition& KernelDefinition::define(std::string constant, std::string value) {
  defines_[std::move(constant)] = std::move(value);
  return *this;
}

std::string KernelDefinition::load_source(const std::string& path, const std::string& kernel) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("kernel '{}': cannot read source file '{}'", kernel, path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool KernelDefinition::implements(BackendKind backend) const {
  switch (backend) {
    case BackendKind::cpu:
      return static_cast<bool>(cpu_);
    case BackendKind::opencl:
      return !opencl_.empty();
    case BackendKind::cuda:
      return !cuda_.empty();
  }
  return false;
}

KernelArg KernelArg::array_of(const DeviceBuffer& buffer, ElementType type,
                              std::uint64_t byte_offset) {
  KernelArg arg;
  arg.is_array = true;
  arg.type = type;
  arg.buffer = &buffer;
  arg.byte_offset = byte_offset;
  return arg;
}

void validate_arguments(const KernelDefinition& kernel, const KernelArgs& args) {
  const auto& params = kernel.params();
  if (args.size() != params.size()) {
    std::string signature;
    for (const auto& p : params) {
      signature += fmt::format("{}{} {} {}", signature.empty() ? "" : ", ", describe(p),
                               to_string(p.type), p.name);
    }
    throw KernelLaunchError(kernel.name(), "",
                            fmt::format("kernel '{}' takes {} arguments ({}), got {}",
                                        kernel.name(), params.size(), signature, args.size()));
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    const KernelParam& param = params[i];
    const KernelArg& arg = args[i];
    auto refuse = [&](const std::string& why) {
      throw KernelLaunchError(
          kernel.name(), param.name,
          fmt::format("kernel '{}', parameter {} '{}': {}", kernel.name(), i, param.name, why));
    };
    if (param.is_array != arg.is_array) {
      refuse(fmt::format("expects {} {}, got {} {}", param.is_array ? "an array of" : "a scalar",
                         to_string(param.type), arg.is_array ? "an array of" : "a scalar",
                         to_string(arg.type)));
    }
    if (param.type != arg.type) {
      refuse(fmt::format("expects element type {}, got {}", to_string(param.type),
                         to_string(arg.type)));
    }
    if (!arg.is_array) continue;
    if (arg.buffer == nullptr || !*arg.buffer) refuse("the buffer is empty");
    if (arg.byte_offset >= arg.buffer->bytes()) {
      refuse(fmt::format("offset {} B lies outside the {} B buffer", arg.byte_offset,
                         arg.buffer->bytes()));
    }
    if (arg.byte_offset % size_of(arg.type) != 0) {
      refuse(fmt::format("offset {} B is not a multiple of the element size {} B", arg.byte_offset,
                         size_of(arg.type)));
    }
  }
}

}  // namespace strata::device
