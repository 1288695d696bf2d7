#include "opencl_kernel.hpp"

#include <fmt/format.h>

#include <vector>

#include "cl_error.hpp"
#include "strata/base/log.hpp"
#include "strata/device/errors.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::device::detail {
namespace {

// A cl_program released unless handed on.
struct ProgramHandle {
  cl_program program = nullptr;
  ProgramHandle() = default;
  explicit ProgramHandle(cl_program p) : program(p) {}
  ProgramHandle(ProgramHandle&& other) noexcept : program(other.program) {
    other.program = nullptr;
  }
  ProgramHandle& operator=(ProgramHandle&& other) noexcept {
    std::swap(program, other.program);
    return *this;
  }
  ~ProgramHandle() {
    if (program != nullptr) clReleaseProgram(program);
  }
  cl_program take() { return std::exchange(program, nullptr); }
};

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0) {
    return {};
  }
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

// Adds `#line 1 "NAME.cl"` before the kernel's own source so that the compiler's log names it
// and numbers its lines as the author does, not counting the generated #defines in front.
std::string with_line_directive(const KernelDefinition& kernel, const GeneratedSource& generated) {
  const std::string& own = kernel.opencl_source();
  std::string source = generated.source;
  const auto at = own.empty() ? std::string::npos : source.find(own);
  if (at != std::string::npos && (at == 0 || source[at - 1] == '\n')) {
    std::string file;
    for (char c : kernel.name())
      file += (c == '"' || c == '\\' || c == '\n') ? '_' : c;
    source.insert(at, fmt::format("#line 1 \"{}.cl\"\n", file));
  }
  return source;
}

[[noreturn]] void throw_compile_error(const KernelDefinition& kernel, const OpenClTarget& target,
                                      cl_int status, std::string log) {
  std::string message = fmt::format("kernel '{}' failed to compile for opencl on {}: {}",
                                    kernel.name(), *target.label, cl_error_name(status));
  if (!log.empty()) message += fmt::format("\ncompiler log:\n{}", log);
  throw KernelCompileError(kernel.name(), "opencl", message, std::move(log));
}

ProgramHandle build_from_source(const KernelDefinition& kernel, const OpenClTarget& target,
                                const std::string& source, const std::string& flags) {
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int status = CL_SUCCESS;
  ProgramHandle program(
      clCreateProgramWithSource(target.context->context, 1, &text, &length, &status));
  cl_check(status, *target.label, "clCreateProgramWithSource");
  status =
      clBuildProgram(program.program, 1, &target.context->device, flags.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    throw_compile_error(kernel, target, status, build_log(program.program, target.context->device));
  }
  return program;
}

std::string binary_of(cl_program program, const std::string& device) {
  std::size_t size = 0;
  cl_check(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr), device,
           "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
  std::string binary(size, '\0');
  auto* data = reinterpret_cast<unsigned char*>(binary.data());
  cl_check(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr), device,
           "clGetProgramInfo(CL_PROGRAM_BINARIES)");
  return binary;
}

// A program from a cached binary; empty if the driver refuses it (then the caller recompiles).
ProgramHandle build_from_binary(const OpenClTarget& target, const std::string& binary,
                                const std::string& flags) {
  const auto* data = reinterpret_cast<const unsigned char*>(binary.data());
  const std::size_t length = binary.size();
  cl_int binary_status = CL_SUCCESS;
  cl_int status = CL_SUCCESS;
  ProgramHandle program(clCreateProgramWithBinary(target.context->context, 1,
                                                  &target.context->device, &length, &data,
                                                  &binary_status, &status));
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) return {};
  status =
      clBuildProgram(program.program, 1, &target.context->device, flags.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) return {};
  return program;
}

}  // namespace

OpenClCompiledKernel::OpenClCompiledKernel(const KernelDefinition& definition,
                                           const CompileOptions& options,
                                           std::shared_ptr<OpenClContext> context,
                                           const Device* owner, cl_program program,
                                           cl_kernel kernel)
    : CompiledKernel(definition, options),
      context_(std::move(context)),
      owner_(owner),
      program_(program),
      kernel_(kernel) {}

OpenClCompiledKernel::~OpenClCompiledKernel() {
  clReleaseKernel(kernel_);
  clReleaseProgram(program_);
}

std::shared_ptr<const CompiledKernel> compile_opencl_kernel(const KernelDefinition& kernel,
                                                            const CompileOptions& options,
                                                            const OpenClTarget& target) {
  if (!kernel.implements(BackendKind::opencl)) {
    throw KernelCompileError(kernel.name(), "opencl",
                             fmt::format("kernel '{}' has no OpenCL C implementation for the "
                                         "opencl backend (KernelDefinition::opencl); {} cannot "
                                         "run it",
                                         kernel.name(), *target.label),
                             "");
  }
  const GeneratedSource generated = generate_opencl_source(kernel, options);
  const std::string source = with_line_directive(kernel, generated);
  const std::string& flags = options.flags;

  ProgramHandle program;
  bool from_cache = false;
  if (target.cache == nullptr) {
    program = build_from_source(kernel, target, source, flags);
  } else {
    const std::string binary = target.cache->get_or_compile(
        "opencl", target.cache_key, source, describe_options(options),
        [&] {
          program = build_from_source(kernel, target, source, flags);
          return binary_of(program.program, *target.label);
        },
        &from_cache);
    if (from_cache) {
      program = build_from_binary(target, binary, flags);
      if (program.program == nullptr) {
        log().warn("kernel cache: {} refused the cached binary of kernel '{}'; recompiling",
                   *target.label, kernel.name());
        program = build_from_source(kernel, target, source, flags);
        from_cache = false;
      }
    }
  }

  cl_int status = CL_SUCCESS;
  cl_kernel native = clCreateKernel(program.program, generated.entry_point.c_str(), &status);
  if (status != CL_SUCCESS) {
    throw KernelCompileError(
        kernel.name(), "opencl",
        fmt::format("kernel '{}': the OpenCL program built for {} has no __kernel named '{}' ({})",
                    kernel.name(), *target.label, generated.entry_point, cl_error_name(status)),
        "");
  }
  cl_uint arguments = 0;
  clGetKernelInfo(native, CL_KERNEL_NUM_ARGS, sizeof arguments, &arguments, nullptr);
  const std::size_t expected =
      kernel.params().size() +
      opencl_origin_parameter_count(kernel, options, kernel.opencl_style()) +
      generated.array_offset_params;
  if (arguments != expected) {
    clReleaseKernel(native);
    throw KernelCompileError(
        kernel.name(), "opencl",
        fmt::format("kernel '{}': its OpenCL __kernel '{}' takes {} parameters but the signature "
                    "declares {}",
                    kernel.name(), generated.entry_point, arguments, expected),
        "");
  }
  auto compiled = std::make_shared<OpenClCompiledKernel>(kernel, options, target.context,
                                                         target.owner, program.take(), native);
  compiled->set_from_cache(from_cache);
  compiled->set_takes_array_offsets(generated.array_offset_params > 0);
  return compiled;
}

}  // namespace strata::device::detail
