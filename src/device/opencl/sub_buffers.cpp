#include "sub_buffers.hpp"

namespace strata::device::detail {

SubBuffers::~SubBuffers() {
  std::lock_guard guard(lock_);
  for (const auto& [sub, event] : retired_) {
    clWaitForEvents(1, &event);
    clReleaseEvent(event);
    clReleaseMemObject(sub);
  }
}

cl_mem SubBuffers::create(cl_mem parent, std::uint64_t offset, std::uint64_t bytes,
                          cl_int& status) {
  const cl_buffer_region region{offset, bytes};
  std::lock_guard guard(lock_);
  sweep();
  return clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
}

void SubBuffers::release_after(cl_mem sub, cl_event used_by) {
  std::lock_guard guard(lock_);
  if (used_by == nullptr) {
    clReleaseMemObject(sub);
    return;
  }
  clRetainEvent(used_by);
  retired_.emplace_back(sub, used_by);
}

std::size_t SubBuffers::pending() const {
  std::lock_guard guard(lock_);
  return retired_.size();
}

void SubBuffers::sweep() {
  std::size_t kept = 0;
  for (auto& [sub, event] : retired_) {
    cl_int status = CL_QUEUED;
    const cl_int result =
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    // Completed (or failed, a negative status): nothing uses the region any more.
    if (result != CL_SUCCESS || status <= CL_COMPLETE) {
      clReleaseEvent(event);
      clReleaseMemObject(sub);
    } else {
      retired_[kept++] = {sub, event};
    }
  }
  retired_.resize(kept);
}

}  // namespace strata::device::detail
