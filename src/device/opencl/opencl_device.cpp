#include "opencl_device.hpp"

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "cl_error.hpp"
#include "opencl_kernel.hpp"
#include "strata/base/page_memory.hpp"
#include "strata/device/errors.hpp"

namespace strata::device::detail {
namespace {

std::string device_string(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  clGetDeviceInfo(device, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0')
    text.pop_back();
  return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  if (clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  clGetPlatformInfo(platform, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0')
    text.pop_back();
  return text;
}

template <typename T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  clGetDeviceInfo(device, what, sizeof value, &value, nullptr);
  return value;
}

// Pages mapped for a buffer of a device that computes in host memory.
struct MappedPages {
  void* data;
  std::uint64_t bytes;
};

void CL_CALLBACK unmap_when_deleted(cl_mem, void* user_data) {
  std::unique_ptr<MappedPages> mapping(static_cast<MappedPages*>(user_data));
  unmap_pages(mapping->data, mapping->bytes);
}

}  // namespace

OpenClDevice::OpenClDevice(cl_platform_id platform, cl_device_id device, std::string id,
                           std::shared_ptr<ProgramCache> cache)
    : cache_(std::move(cache)) {
  info_.backend = BackendKind::opencl;
  info_.name = device_string(device, CL_DEVICE_NAME);
  info_.platform = platform_string(platform, CL_PLATFORM_NAME);
  info_.id = std::move(id);
  info_.memory_bytes = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  info_.compute_units = device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  info_.max_allocation_bytes = device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info_.max_block_threads =
      static_cast<unsigned>(device_value<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  info_.host_memory = device_value<cl_bool>(device, CL_DEVICE_HOST_UNIFIED_MEMORY) == CL_TRUE;
  info_.buffer_offset_alignment =
      std::max<std::uint64_t>(1, device_value<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8);
  label_ = std::make_shared<const std::string>(fmt::format("{} ({})", info_.id, info_.name));
  cache_key_ =
      fmt::format("{}|{}|{}", info_.platform, info_.name, device_string(device, CL_DRIVER_VERSION));
  context_ = std::make_shared<OpenClContext>(platform, device, *label_);
  for (int kind = 0; kind < queue_kinds; ++kind)
    queues_[kind] = std::make_unique<OpenClQueue>(static_cast<QueueKind>(kind), *this);
}

OpenClDevice::~OpenClDevice() = default;

DeviceBuffer OpenClDevice::allocate(std::uint64_t bytes) {
  if (bytes > info_.max_allocation_bytes) {
    throw DeviceError(
        fmt::format("opencl {}: cannot allocate {} B: the device's largest buffer is "
                    "{} B (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                    *label_, bytes, info_.max_allocation_bytes));
  }
  // A device that computes in host memory gets pages mapped here as its buffer, so a pool of
  // gigabytes costs nothing until used, whatever the driver's own allocator does. The pages go
  // back when the driver deletes the buffer, after any work still using it.
  void* pages = info_.host_memory ? map_pages(bytes) : nullptr;
  cl_int status = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context_->context,
                                 CL_MEM_READ_WRITE | (pages != nullptr ? CL_MEM_USE_HOST_PTR : 0),
                                 std::max<std::uint64_t>(bytes, 1), pages, &status);
  if (status != CL_SUCCESS) {
    unmap_pages(pages, bytes);
    throw DeviceError(fmt::format("opencl {}: cannot allocate {} B of device memory: {}", *label_,
                                  bytes, cl_error_name(status)));
  }
  if (pages != nullptr) {
    // Where the driver cannot call back, the pages stay mapped until the process ends.
    auto mapping = std::make_unique<MappedPages>(MappedPages{pages, bytes});
    if (clSetMemObjectDestructorCallback(buffer, &unmap_when_deleted, mapping.get()) == CL_SUCCESS)
      static_cast<void>(mapping.release());
  }
  return DeviceBuffer(this, buffer, bytes);
}

void OpenClDevice::release(void* handle, std::uint64_t) noexcept {
  clReleaseMemObject(static_cast<cl_mem>(handle));
}

HostBuffer OpenClDevice::allocate_host(std::uint64_t bytes) {
  // Pinned memory: a host-allocated buffer mapped once; unmapped and released on free.
  const std::size_t size = std::max<std::uint64_t>(bytes, 1);
  cl_int status = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context_->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size,
                                 nullptr, &status);
  if (status != CL_SUCCESS) return Device::allocate_host(bytes);
  void* data = clEnqueueMapBuffer(context_->service, buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                  size, 0, nullptr, nullptr, &status);
  if (status != CL_SUCCESS || data == nullptr) {
    clReleaseMemObject(buffer);
    return Device::allocate_host(bytes);
  }
  return HostBuffer(data, bytes, [context = context_, buffer](void* mapped) {
    clEnqueueUnmapMemObject(context->service, buffer, mapped, 0, nullptr, nullptr);
    clFinish(context->service);
    clReleaseMemObject(buffer);
  });
}

std::shared_ptr<const CompiledKernel> OpenClDevice::compile(const KernelDefinition& kernel,
                                                            const CompileOptions& options) {
  return compile_opencl_kernel(kernel, options,
                               OpenClTarget{context_, this, label_, cache_.get(), cache_key_});
}

}  // namespace strata::device::detail
