#include "strata/device/kernel_source.hpp"

#include <fmt/format.h>

#include "opencl_array_offsets.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

// Array types a virtual-blocks CUDA kernel takes instead of raw pointers (the paper's
// Vector / Matrix / Tensor): the base is shifted once so global indices work unchanged.
constexpr std::string_view cuda_array_types = R"(
namespace strata {
template <typename T, int N>
struct Array {
  T* base;
  unsigned long long stride[N];
  __device__ Array(T* origin, const unsigned long long (&strides)[N]) : base(origin) {
    for (int d = 0; d < N; ++d) stride[d] = strides[d];
  }
  // Array<float, N> converts to Array<const float, N>, as float* does to const float*.
  template <typename U>
  __device__ Array(const Array<U, N>& other) : base(other.base) {
    for (int d = 0; d < N; ++d) stride[d] = other.stride[d];
  }
  __device__ T& operator[](long long flat) const { return base[flat]; }
  __device__ T& operator()(long long i) const { return base[i * (long long)stride[0]]; }
  __device__ T& operator()(long long i, long long j) const {
    return base[i * (long long)stride[0] + j * (long long)stride[1]];
  }
  __device__ T& operator()(long long i, long long j, long long k) const {
    return base[i * (long long)stride[0] + j * (long long)stride[1] + k * (long long)stride[2]];
  }
};
template <typename T> using Vector = Array<T, 1>;
template <typename T> using Matrix = Array<T, 2>;
template <typename T> using Tensor = Array<T, 3>;
}  // namespace strata
)";

std::string defines_of(const KernelDefinition& kernel, const CompileOptions& options) {
  std::string text;
  for (const auto& [name, value] : kernel.defines())
    text += fmt::format("#define {} {}\n", name, value);
  for (const auto& [name, value] : options.defines)
    text += fmt::format("#define {} {}\n", name, value);
  return text;
}

// Row-major strides of an array's local region, and the element offset of its global origin.
struct Layout {
  std::uint64_t strides[3] = {1, 1, 1};
  std::uint64_t origin_shift = 0;
};

Layout layout_of(const KernelParam& param, const ArrayPlacement& placement) {
  Layout layout;
  const std::uint64_t extent[3] = {placement.extent.x, placement.extent.y, placement.extent.z};
  const std::uint64_t offset[3] = {placement.offset.x, placement.offset.y, placement.offset.z};
  for (int d = param.rank - 1; d >= 0; --d) {
    layout.strides[d] = d == param.rank - 1 ? 1 : layout.strides[d + 1] * extent[d + 1];
  }
  for (int d = 0; d < param.rank; ++d)
    layout.origin_shift += offset[d] * layout.strides[d];
  return layout;
}

std::size_t array_params(const KernelDefinition& kernel) {
  std::size_t arrays = 0;
  for (const auto& param : kernel.params())
    arrays += param.is_array ? 1 : 0;
  return arrays;
}

std::vector<ArrayPlacement> placements_for(const KernelDefinition& kernel,
                                           const CompileOptions& options) {
  const std::size_t arrays = array_params(kernel);
  if (options.placements.empty()) return std::vector<ArrayPlacement>(arrays);
  if (options.placements.size() != arrays) {
    throw KernelLaunchError(
        kernel.name(), "",
        fmt::format("kernel '{}': {} array placements given for its {} array parameters",
                    kernel.name(), options.placements.size(), arrays));
  }
  return options.placements;
}

// `suffix` makes the literals 64-bit: "ull" in CUDA; "ul" in OpenCL C, where ulong is 64 bits
// and `long long` is reserved (strict compilers reject "ull").
std::string stride_defines(const KernelDefinition& kernel, const CompileOptions& options,
                           std::string_view suffix) {
  std::string text;
  const auto placements = placements_for(kernel, options);
  std::size_t a = 0;
  for (const auto& param : kernel.params()) {
    if (!param.is_array) continue;
    const Layout layout = layout_of(param, placements[a++]);
    for (int d = 0; d < param.rank; ++d)
      text += fmt::format("#define STRATA_STRIDE_{}_{} {}{}\n", param.name, d, layout.strides[d],
                          suffix);
  }
  return text;
}

// The block index is 32 bits per dimension (CUDA's dim3, OpenCL's uint3): offsets must fit.
void check_block_index(const KernelDefinition& kernel, const Dim3& block_offset) {
  for (int d = 0; d < 3; ++d) {
    if (block_offset[d] > 0xffffffffull) {
      throw KernelLaunchError(kernel.name(), "",
                              fmt::format("kernel '{}': block offset {} in dimension {} does not "
                                          "fit the 32-bit block index",
                                          kernel.name(), block_offset[d], d));
    }
  }
}

void check_block_offset(const KernelDefinition& kernel, const CompileOptions& options) {
  // With origins at launch, each launch's are checked (launch_shifts).
  if (!options.origins_at_launch) check_block_index(kernel, options.block_offset);
}

// The generated entry point's parameter list, the statements that build the user's array
// arguments from the local chunks, and the call of the user's function.
struct WrapperParts {
  std::string params;
  std::string body;
  std::string call = "strata_block";
};

// The names of the trailing parameters a program compiled with origins at launch takes.
constexpr std::string_view block_offset_params[3] = {
    "strata_block_offset_x", "strata_block_offset_y", "strata_block_offset_z"};
std::string shift_param(const KernelParam& param) {
  return "strata_origin_shift_" + param.name;
}

// The expression of the first block's index in dimension d.
std::string block_offset_of(const CompileOptions& options, int d) {
  return options.origins_at_launch ? std::string(block_offset_params[d])
                                   : fmt::format("{}u", options.block_offset[d]);
}

// `type_name` spells an element type in the backend's language; `array_param` declares an
// array's raw parameter and `array_setup` turns it into the user's argument.
// `array_setup(type, param, layout, shift)` gets the element shift of the array's origin: a
// literal baked in (with `suffix`), or with origins at launch the name of its trailing parameter
// (`i64` spells its type), or none where `i64` is empty: the launch passes pointers already
// shifted (CUDA). `u32` spells the block offset's parameters' type.
template <typename TypeName, typename ArrayParam, typename ArraySetup>
WrapperParts wrapper_parts(const KernelDefinition& kernel, const CompileOptions& options,
                           TypeName type_name, ArrayParam array_param, ArraySetup array_setup,
                           std::string_view u32, std::string_view i64, std::string_view suffix) {
  WrapperParts parts;
  const auto placements = placements_for(kernel, options);
  std::size_t a = 0;
  std::string trailing;
  for (const auto& param : kernel.params()) {
    const auto type = type_name(param.type);
    parts.params += parts.params.empty() ? "" : ", ";
    parts.call += ", " + param.name;
    if (!param.is_array) {
      parts.params += fmt::format("{} {}", type, param.name);
      continue;
    }
    parts.params += array_param(type, param);
    const Layout layout = layout_of(param, placements[a++]);
    std::string shift = fmt::format("{}{}", layout.origin_shift, suffix);
    if (options.origins_at_launch) {
      shift = i64.empty() ? std::string() : shift_param(param);
      if (!shift.empty()) trailing += fmt::format(", {} {}", i64, shift);
    }
    parts.body += array_setup(type, param, layout, shift);
  }
  if (options.origins_at_launch) {
    parts.params += fmt::format("{}{} {}, {} {}, {} {}", parts.params.empty() ? "" : ", ", u32,
                                block_offset_params[0], u32, block_offset_params[1], u32,
                                block_offset_params[2]) +
                    trailing;
  }
  return parts;
}

}  // namespace

std::size_t opencl_origin_parameter_count(const KernelDefinition& kernel,
                                          const CompileOptions& options, KernelStyle style) {
  if (!options.origins_at_launch || style != KernelStyle::virtual_blocks) return 0;
  return 3 + array_params(kernel);
}

std::optional<LaunchShifts> launch_shifts(const CompiledKernel& compiled, const KernelArgs& args,
                                          KernelStyle style) {
  const KernelDefinition& kernel = compiled.definition();
  const CompileOptions& options = compiled.options();
  if (style != KernelStyle::virtual_blocks) return {};  // the source indexes raw pointers itself
  if (!options.origins_at_launch) {
    if (args.origins) {
      throw KernelLaunchError(kernel.name(), "",
                              fmt::format("kernel '{}' was compiled with its origins baked in; "
                                          "the launch gives origins (KernelArgs::origins)",
                                          kernel.name()));
    }
    return {};
  }
  if (!args.origins) {
    throw KernelLaunchError(kernel.name(), "",
                            fmt::format("kernel '{}' was compiled to take its origins at launch "
                                        "(CompileOptions::origins_at_launch); the launch gives "
                                        "none (KernelArgs::origins)",
                                        kernel.name()));
  }
  const LaunchOrigins& origins = *args.origins;
  const auto placements = placements_for(kernel, options);
  if (origins.array_offsets.size() != placements.size()) {
    throw KernelLaunchError(
        kernel.name(), "",
        fmt::format("kernel '{}': the launch gives {} array origins for its {} "
                    "array parameters",
                    kernel.name(), origins.array_offsets.size(), placements.size()));
  }
  check_block_index(kernel, origins.block_offset);
  LaunchShifts shifts;
  for (int d = 0; d < 3; ++d) {
    shifts.block_offset[static_cast<std::size_t>(d)] =
        static_cast<std::uint32_t>(origins.block_offset[d]);
  }
  std::size_t a = 0;
  for (const auto& param : kernel.params()) {
    if (!param.is_array) continue;
    const ArrayPlacement at{origins.array_offsets[a], placements[a].extent};
    ++a;
    shifts.elements.push_back(static_cast<std::int64_t>(layout_of(param, at).origin_shift));
  }
  return shifts;
}

std::string describe_options(const CompileOptions& options) {
  return options.flags;
}

GeneratedSource generate_opencl_source(const KernelDefinition& kernel,
                                       const CompileOptions& options) {
  GeneratedSource out;
  out.source = defines_of(kernel, options);
  if (kernel.opencl_style() == KernelStyle::direct) {
    out.entry_point = kernel.name();
    if (auto rewritten = with_array_offsets(kernel)) {
      out.source += *rewritten;
      out.array_offset_params = array_params(kernel);
    } else {
      out.source += kernel.opencl_source();
    }
    return out;
  }
  out.source += stride_defines(kernel, options, "ul");
  out.source += kernel.opencl_source();
  out.entry_point = "strata_entry_" + kernel.name();
  check_block_offset(kernel, options);
  const WrapperParts parts = wrapper_parts(
      kernel, options, opencl_name,
      [](std::string_view type, const KernelParam& param) {
        return fmt::format("__global {}* {}_local", type, param.name);
      },
      [](std::string_view type, const KernelParam& param, const Layout&, const std::string& shift) {
        return fmt::format("  __global {0}* {1} = {1}_local + {3}{1} - {2};\n", type, param.name,
                           shift, array_offset_prefix);
      },
      "uint", "long", "ul");
  // The arrays' element offsets in their buffers, after every other parameter.
  std::string offsets;
  for (const auto& param : kernel.params())
    if (param.is_array) offsets += fmt::format(", ulong {}{}", array_offset_prefix, param.name);
  out.array_offset_params = array_params(kernel);
  out.source += fmt::format(
      "\n// Generated by Strata: worker-specific constants baked in at compile time.\n"
      "__kernel void {}({}) {{\n"
      "  const uint3 strata_block = (uint3)({} + (uint)get_group_id(0), {} + "
      "(uint)get_group_id(1), {} + (uint)get_group_id(2));\n{}"
      "  {}({});\n}}\n",
      out.entry_point, parts.params + offsets, block_offset_of(options, 0),
      block_offset_of(options, 1), block_offset_of(options, 2), parts.body, kernel.name(),
      parts.call);
  return out;
}

GeneratedSource generate_cuda_source(const KernelDefinition& kernel,
                                     const CompileOptions& options) {
  GeneratedSource out;
  out.source = defines_of(kernel, options);
  // #line makes compiler messages count lines in the user's source, not the generated program.
  const std::string user_source =
      fmt::format("#line 1 \"{}.cu\"\n{}\n", kernel.name(), kernel.cuda_source());
  if (kernel.cuda_style() == KernelStyle::direct) {
    out.source += user_source;
    out.entry_point = kernel.name();
    return out;
  }
  check_block_offset(kernel, options);
  out.source += cuda_array_types;
  out.source += stride_defines(kernel, options, "ull");
  out.source += user_source;
  out.source += fmt::format("#line 1 \"strata_wrapper_{}.cu\"\n", kernel.name());
  out.entry_point = "strata_entry_" + kernel.name();
  const WrapperParts parts = wrapper_parts(
      kernel, options, cuda_name,
      [](std::string_view type, const KernelParam& param) {
        return fmt::format("{}* {}_local", type, param.name);
      },
      [](std::string_view type, const KernelParam& param, const Layout& layout,
         const std::string& shift) {
        std::string strides;
        for (int d = 0; d < param.rank; ++d)
          strides += fmt::format("{}{}ull", d == 0 ? "" : ", ", layout.strides[d]);
        return fmt::format(
            "  const unsigned long long {1}_strides[{3}] = {{{4}}};\n"
            "  ::strata::Array<{0}, {3}> {1}({1}_local{2}, {1}_strides);\n",
            type, param.name, shift.empty() ? "" : " - " + shift, param.rank, strides);
      },
      // With origins at launch the pointers come shifted (CudaQueue::launch): no shift here.
      "unsigned int", "", "ll");
  out.source += fmt::format(
      "\n// Generated by Strata: worker-specific constants baked in at compile time.\n"
      "extern \"C\" __global__ void {}({}) {{\n"
      "  const dim3 strata_block({} + blockIdx.x, {} + blockIdx.y, {} + blockIdx.z);\n{}"
      "  {}({});\n}}\n",
      out.entry_point, parts.params, block_offset_of(options, 0), block_offset_of(options, 1),
      block_offset_of(options, 2), parts.body, kernel.name(), parts.call);
  return out;
}

}  // namespace strata::device
