#include "strata/device/kernel_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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

std::vector<ArrayPlacement> placements_for(const KernelDefinition& kernel,
                                           const CompileOptions& options) {
  std::size_t arrays = 0;
  for (const auto& param : kernel.params())
    arrays += param.is_array ? 1 : 0;
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

// An OpenCL array argument is its whole buffer plus an element offset (a trailing parameter
// named with this prefix), never a sub-buffer: the OpenCL specification leaves concurrent use of
// a buffer and its sub-buffers undefined, and NVIDIA's driver crashed on it.
constexpr std::string_view array_offset_prefix = "strata_offset_";

// `source` with comments and string or character literals blanked (same length, newlines kept),
// so that searching it finds code alone.
std::string code_only(std::string_view source) {
  std::string code(source);
  for (std::size_t i = 0; i < code.size();) {
    const char c = code[i];
    const char next = i + 1 < code.size() ? code[i + 1] : '\0';
    std::size_t end = i;
    if (c == '/' && next == '/') {
      end = code.find('\n', i);
    } else if (c == '/' && next == '*') {
      end = code.find("*/", i + 2);
      end = end == std::string::npos ? end : end + 2;
    } else if (c == '"' || c == '\'') {
      end = i + 1;
      while (end < code.size() && code[end] != c && code[end] != '\n')
        end += code[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, code.size());
    } else {
      ++i;
      continue;
    }
    if (end == std::string::npos) end = code.size();
    for (std::size_t j = i; j < end; ++j)
      if (code[j] != '\n') code[j] = ' ';
    i = end;
  }
  return code;
}

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The position of the bracket that closes the one at `open` in `code`, or npos.
std::size_t closing(const std::string& code, std::size_t open) {
  const char up = code[open];
  const char down = up == '(' ? ')' : '}';
  int depth = 0;
  for (std::size_t i = open; i < code.size(); ++i) {
    depth += code[i] == up ? 1 : code[i] == down ? -1 : 0;
    if (depth == 0) return i;
  }
  return std::string::npos;
}

// The start of the first whole-word occurrence of `word` in `code` at or after `from`, or npos.
std::size_t find_word(const std::string& code, std::string_view word, std::size_t from) {
  for (auto at = code.find(word, from); at != std::string::npos; at = code.find(word, at + 1)) {
    const bool starts = at == 0 || !identifier_char(code[at - 1]);
    const bool ends = at + word.size() >= code.size() || !identifier_char(code[at + word.size()]);
    if (starts && ends) return at;
  }
  return std::string::npos;
}

int line_at(std::string_view text, std::size_t position) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + position, '\n'));
}

// A direct-style OpenCL source whose __kernel takes each array as its buffer and an element
// offset: the array parameters are renamed, an `ulong strata_offset_NAME` per array follows the
// declared parameters, and inside the body a macro gives each array its old name, shifted. Lines
// keep their numbers (#line). Nothing when the kernel has no arrays, or its declaration is not
// found or does not declare the signature's parameters (the compile then reports the mismatch).
std::optional<std::string> with_array_offsets(const KernelDefinition& kernel) {
  const auto& params = kernel.params();
  if (std::none_of(params.begin(), params.end(), [](const auto& p) { return p.is_array; }))
    return {};
  const std::string& source = kernel.opencl_source();
  const std::string code = code_only(source);
  // The declaration: the kernel's name followed by '(' after the word kernel or __kernel.
  std::size_t open = std::string::npos;
  for (auto at = find_word(code, kernel.name(), 0); at != std::string::npos;
       at = find_word(code, kernel.name(), at + 1)) {
    const auto paren = code.find_first_not_of(" \t\r\n", at + kernel.name().size());
    const auto before = code.find_last_of(";}", at);
    const std::string head = code.substr(before == std::string::npos ? 0 : before + 1,
                                         at - (before == std::string::npos ? 0 : before + 1));
    if (paren != std::string::npos && code[paren] == '(' &&
        (find_word(head, "kernel", 0) != std::string::npos ||
         find_word(head, "__kernel", 0) != std::string::npos)) {
      open = paren;
      break;
    }
  }
  if (open == std::string::npos) return {};
  const auto close = closing(code, open);
  const auto body =
      close == std::string::npos ? close : code.find_first_not_of(" \t\r\n", close + 1);
  if (body == std::string::npos || code[body] != '{') return {};
  const auto body_end = closing(code, body);
  if (body_end == std::string::npos) return {};
  // The declared parameters, split at commas outside brackets.
  std::vector<std::pair<std::size_t, std::size_t>> declared;  // [begin, end) in source
  int depth = 0;
  std::size_t begin = open + 1;
  for (std::size_t i = open + 1; i <= close; ++i) {
    depth += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
    if ((code[i] == ',' && depth == 0) || i == close) {
      declared.emplace_back(begin, i);
      begin = i + 1;
    }
  }
  if (declared.size() != params.size()) return {};
  // Each array parameter's declared name: the last identifier of its declaration.
  std::vector<std::pair<std::size_t, std::string>> renamed;  // position in source, name
  std::string trailing;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_array) continue;
    auto end = declared[i].second;
    while (end > declared[i].first && !identifier_char(code[end - 1]))
      --end;
    auto start = end;
    while (start > declared[i].first && identifier_char(code[start - 1]))
      --start;
    if (start == end) return {};
    renamed.emplace_back(start, code.substr(start, end - start));
    trailing += fmt::format(", ulong {}{}", array_offset_prefix, params[i].name);
  }
  std::string defines;
  std::string undefines;
  std::size_t a = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_array) continue;
    const std::string& name = renamed[a++].second;
    defines += fmt::format("#define {0} (strata_array_{0} + {1}{2})\n", name, array_offset_prefix,
                           params[i].name);
    undefines += fmt::format("#undef {}\n", name);
  }
  const std::string file = fmt::format("\"{}.cl\"", kernel.name());
  std::string out = fmt::format("#line 1 {}\n", file);
  std::size_t copied = 0;
  for (const auto& [position, name] : renamed) {
    out += source.substr(copied, position - copied) + "strata_array_" + name;
    copied = position + name.size();
  }
  out += source.substr(copied, close - copied) + trailing;
  out += source.substr(close, body + 1 - close);
  out += fmt::format("\n{}#line {} {}\n", defines, line_at(source, body), file);
  out += source.substr(body + 1, body_end - body - 1);
  out += fmt::format("\n{}#line {} {}\n", undefines, line_at(source, body_end), file);
  out += source.substr(body_end);
  return out;
}

}  // namespace

std::size_t opencl_origin_parameter_count(const KernelDefinition& kernel,
                                          const CompileOptions& options, KernelStyle style) {
  if (!options.origins_at_launch || style != KernelStyle::virtual_blocks) return 0;
  std::size_t count = 3;
  for (const auto& param : kernel.params())
    count += param.is_array ? 1 : 0;
  return count;
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
      for (const auto& param : kernel.params())
        out.array_offset_params += param.is_array ? 1 : 0;
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
  for (const auto& param : kernel.params()) {
    if (!param.is_array) continue;
    offsets += fmt::format(", ulong {}{}", array_offset_prefix, param.name);
    ++out.array_offset_params;
  }
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
