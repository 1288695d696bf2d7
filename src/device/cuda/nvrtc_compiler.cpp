#include "nvrtc_compiler.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "strata/device/errors.hpp"

namespace strata::device::cuda {
namespace {

// Owns an nvrtcProgram.
struct ProgramDeleter {
  void operator()(nvrtcProgram* program) const {
    nvrtcDestroyProgram(program);
    delete program;
  }
};
using ProgramHandle = std::unique_ptr<nvrtcProgram, ProgramDeleter>;

std::vector<std::string> split_flags(const std::string& flags) {
  std::vector<std::string> out;
  std::istringstream words(flags);
  for (std::string word; words >> word;)
    out.push_back(word);
  return out;
}

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

[[noreturn]] void fail(const CudaProgram& program, const std::string& what,
                       const std::string& log) {
  throw KernelCompileError(
      program.kernel, "cuda",
      fmt::format("kernel '{}' (backend cuda, device {}, {}): {}{}{}", program.kernel,
                  program.device, program.target.arch, what, log.empty() ? "" : ":\n", log),
      log);
}

std::string result_text(nvrtcResult result) {
  return fmt::format("{} ({})", nvrtcGetErrorString(result), static_cast<int>(result));
}

}  // namespace

std::vector<int> nvrtc_architectures() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  std::sort(archs.begin(), archs.end());
  return archs;
}

CudaTarget cuda_target_for(int major, int minor) {
  const int wanted = major * 10 + minor;
  const auto archs = nvrtc_architectures();
  if (archs.empty() || std::find(archs.begin(), archs.end(), wanted) != archs.end())
    return CudaTarget{fmt::format("sm_{}", wanted), CudaBinaryFormat::cubin};
  // A GPU newer than this NVRTC: PTX for the newest architecture it has, JIT-compiled by the
  // driver. (Older than every known architecture cannot run this NVRTC's output at all; the
  // CUBIN request then fails with NVRTC's own message.)
  if (wanted > archs.back())
    return CudaTarget{fmt::format("compute_{}", archs.back()), CudaBinaryFormat::ptx};
  return CudaTarget{fmt::format("sm_{}", wanted), CudaBinaryFormat::cubin};
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return fmt::format("{}.{}", major, minor);
}

std::string compile_cuda_program(const CudaProgram& program) {
  ProgramHandle handle(new nvrtcProgram(nullptr));
  const std::string file = program.kernel + ".cu";
  nvrtcResult result =
      nvrtcCreateProgram(handle.get(), program.source.c_str(), file.c_str(), 0, nullptr, nullptr);
  if (result != NVRTC_SUCCESS) {
    *handle = nullptr;
    fail(program, "NVRTC could not create the program: " + result_text(result), "");
  }
  std::vector<std::string> options{"--gpu-architecture=" + program.target.arch, "--std=c++17",
                                   "-DSTRATA_CUDA=1"};
  for (auto& flag : split_flags(program.flags))
    options.push_back(std::move(flag));
  std::vector<const char*> pointers;
  for (const auto& option : options)
    pointers.push_back(option.c_str());
  result = nvrtcCompileProgram(*handle, static_cast<int>(pointers.size()), pointers.data());
  const std::string log = program_log(*handle);
  if (result != NVRTC_SUCCESS)
    fail(program, "compilation failed (" + result_text(result) + ")", log);

  const bool cubin = program.target.format == CudaBinaryFormat::cubin;
  std::size_t size = 0;
  result = cubin ? nvrtcGetCUBINSize(*handle, &size) : nvrtcGetPTXSize(*handle, &size);
  if (result != NVRTC_SUCCESS || size == 0) {
    fail(program,
         fmt::format("NVRTC produced no {}: {}", cubin ? "CUBIN" : "PTX", result_text(result)),
         log);
  }
  std::string binary(size, '\0');
  result = cubin ? nvrtcGetCUBIN(*handle, binary.data()) : nvrtcGetPTX(*handle, binary.data());
  if (result != NVRTC_SUCCESS)
    fail(program, "reading NVRTC's output failed: " + result_text(result), log);
  return binary;
}

}  // namespace strata::device::cuda
