#include "cuda_device.hpp"

#include <fmt/format.h>

#include "cuda_error.hpp"
#include "cuda_kernel.hpp"
#include "strata/device/errors.hpp"
#include "strata/device/kernel_source.hpp"

namespace strata::device::cuda {
namespace {

LaunchLimits limits_of(const cudaDeviceProp& p) {
  LaunchLimits limits;
  limits.max_block_threads = static_cast<unsigned>(p.maxThreadsPerBlock);
  for (int d = 0; d < 3; ++d) {
    limits.max_block[d] = static_cast<unsigned>(p.maxThreadsDim[d]);
    limits.max_grid[d] = static_cast<unsigned>(p.maxGridSize[d]);
  }
  return limits;
}

std::string version_text(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

}  // namespace

CudaDevice::CudaDevice(int ordinal, const cudaDeviceProp& properties, int driver_version,
                       std::shared_ptr<ProgramCache> cache)
    : ordinal_(ordinal),
      target_(cuda_target_for(properties.major, properties.minor)),
      cache_(cache ? std::move(cache) : std::make_shared<ProgramCache>()) {
  int runtime_version = 0;
  cudaRuntimeGetVersion(&runtime_version);
  info_.backend = BackendKind::cuda;
  info_.name = properties.name;
  info_.platform = fmt::format("CUDA driver {}, runtime {}, NVRTC {}", version_text(driver_version),
                               version_text(runtime_version), nvrtc_version());
  info_.id = fmt::format("cuda:{}", ordinal);
  info_.memory_bytes = properties.totalGlobalMem;
  info_.compute_units = static_cast<unsigned>(properties.multiProcessorCount);
  info_.max_allocation_bytes = properties.totalGlobalMem;
  info_.max_block_threads = static_cast<unsigned>(properties.maxThreadsPerBlock);
  info_.host_memory = false;
  cache_key_ = fmt::format("{} sm_{}{} {} driver {} nvrtc {}", info_.name, properties.major,
                           properties.minor, target_.arch, driver_version, nvrtc_version());
  const LaunchLimits limits = limits_of(properties);
  for (int kind = 0; kind < queue_kinds; ++kind) {
    queues_[kind] =
        std::make_unique<CudaQueue>(static_cast<QueueKind>(kind), *this, ordinal, limits);
  }
}

CudaDevice::~CudaDevice() {
  for (auto& queue : queues_)
    queue.reset();
  cudaSetDevice(ordinal_);
  for (auto& [binary, library] : libraries_)
    cudaLibraryUnload(library);
}

DeviceBuffer CudaDevice::allocate(std::uint64_t bytes) {
  check(cudaSetDevice(ordinal_), info_.id, "selecting the device");
  void* pointer = nullptr;
  const cudaError_t status = cudaMalloc(&pointer, bytes == 0 ? 1 : bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();  // allocation failures are not sticky; clear it
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    throw DeviceError(
        fmt::format("{} ({}): cannot allocate {} B of device memory ({} B free of "
                    "{} B): {}",
                    info_.id, info_.name, bytes, free, total, error_text(status)));
  }
  return DeviceBuffer(this, pointer, bytes);
}

std::uint64_t CudaDevice::free_memory_bytes() const {
  std::size_t free = 0, total = 0;
  if (cudaSetDevice(ordinal_) != cudaSuccess || cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return info_.memory_bytes;
  }
  return free;
}

HostBuffer CudaDevice::allocate_host(std::uint64_t bytes) {
  check(cudaSetDevice(ordinal_), info_.id, "selecting the device");
  void* pointer = nullptr;
  const cudaError_t status = cudaHostAlloc(&pointer, bytes == 0 ? 1 : bytes, cudaHostAllocPortable);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(fmt::format("{} ({}): cannot allocate {} B of pinned host memory: {}",
                                  info_.id, info_.name, bytes, error_text(status)));
  }
  return HostBuffer(pointer, bytes, [](void* p) { cudaFreeHost(p); });
}

void CudaDevice::release(void* handle, std::uint64_t) noexcept {
  cudaSetDevice(ordinal_);
  cudaFree(handle);
}

cudaKernel_t CudaDevice::load(const std::string& kernel, const std::string& binary,
                              const std::string& entry_point) {
  std::lock_guard guard(libraries_lock_);
  check(cudaSetDevice(ordinal_), info_.id, "selecting the device");
  auto found = libraries_.find(binary);
  if (found == libraries_.end()) {
    cudaLibrary_t library = nullptr;
    const cudaError_t status =
        cudaLibraryLoadData(&library, binary.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (status != cudaSuccess) {
      cudaGetLastError();
      throw KernelCompileError(
          kernel, "cuda",
          fmt::format("kernel '{}' (backend cuda, device {} {}): loading the "
                      "compiled {} failed: {}",
                      kernel, info_.id, info_.name, target_.arch, error_text(status)),
          "");
    }
    found = libraries_.emplace(binary, library).first;
  }
  cudaKernel_t function = nullptr;
  const cudaError_t status = cudaLibraryGetKernel(&function, found->second, entry_point.c_str());
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw KernelCompileError(kernel, "cuda",
                             fmt::format("kernel '{}' (backend cuda, device {}): the program has "
                                         "no entry point '{}' (extern \"C\" __global__): {}",
                                         kernel, info_.id, entry_point, error_text(status)),
                             "");
  }
  return function;
}

std::shared_ptr<const CompiledKernel> CudaDevice::compile(const KernelDefinition& kernel,
                                                          const CompileOptions& options) {
  if (!kernel.implements(BackendKind::cuda)) {
    throw KernelCompileError(kernel.name(), "cuda",
                             fmt::format("kernel '{}' has no CUDA source for the cuda backend "
                                         "(KernelDefinition::cuda)",
                                         kernel.name()),
                             "");
  }
  const GeneratedSource generated = generate_cuda_source(kernel, options);
  const CudaProgram program{generated.source, kernel.name(), info_.name, target_, options.flags};
  bool from_cache = false;
  const std::string binary = cache_->get_or_compile(
      "cuda", cache_key_, generated.source, describe_options(options),
      [&] { return compile_cuda_program(program); }, &from_cache);
  auto compiled = std::make_shared<CudaCompiledKernel>(
      kernel, options, *this, load(kernel.name(), binary, generated.entry_point));
  compiled->set_from_cache(from_cache);
  return compiled;
}

}  // namespace strata::device::cuda
