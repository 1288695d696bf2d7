#include "opencl_context.hpp"

#include "cl_error.hpp"

namespace strata::device::detail {

OpenClContext::OpenClContext(cl_platform_id platform_id, cl_device_id device_id,
                             std::string device_name)
    : platform(platform_id), device(device_id), name(std::move(device_name)) {
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              reinterpret_cast<cl_context_properties>(platform), 0};
  cl_int status = CL_SUCCESS;
  context = clCreateContext(properties, 1, &device, nullptr, nullptr, &status);
  cl_check(status, name, "clCreateContext");
  try {
    for (auto& queue : queues) {
      queue = clCreateCommandQueue(context, device, 0, &status);  // in order, no profiling
      cl_check(status, name, "clCreateCommandQueue");
    }
    service = clCreateCommandQueue(context, device, 0, &status);
    cl_check(status, name, "clCreateCommandQueue");
  } catch (...) {
    release();
    throw;
  }
}

OpenClContext::~OpenClContext() {
  release();
}

void OpenClContext::release() noexcept {
  // Releasing flushes; commands still queued finish first (the driver keeps what they use).
  for (auto& queue : queues) {
    if (queue != nullptr) clReleaseCommandQueue(queue);
    queue = nullptr;
  }
  if (service != nullptr) clReleaseCommandQueue(service);
  service = nullptr;
  if (context != nullptr) clReleaseContext(context);
  context = nullptr;
}

}  // namespace strata::device::detail
