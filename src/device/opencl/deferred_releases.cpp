#include "deferred_releases.hpp"

namespace strata::device::detail {

DeferredReleases::~DeferredReleases() {
  std::lock_guard guard(lock_);
  for (const auto& [object, event] : pending_) {
    clWaitForEvents(1, &event);
    clReleaseEvent(event);
    clReleaseMemObject(object);
  }
}

void DeferredReleases::release_after(cl_mem object, cl_event used_by) {
  std::lock_guard guard(lock_);
  sweep();
  if (used_by == nullptr) {
    clReleaseMemObject(object);
    return;
  }
  clRetainEvent(used_by);
  pending_.emplace_back(object, used_by);
}

std::size_t DeferredReleases::pending() const {
  std::lock_guard guard(lock_);
  return pending_.size();
}

void DeferredReleases::sweep() {
  std::size_t kept = 0;
  for (auto& [object, event] : pending_) {
    cl_int status = CL_QUEUED;
    const cl_int result =
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    // Completed (or failed, a negative status): nothing uses the object any more.
    if (result != CL_SUCCESS || status <= CL_COMPLETE) {
      clReleaseEvent(event);
      clReleaseMemObject(object);
    } else {
      pending_[kept++] = {object, event};
    }
  }
  pending_.resize(kept);
}

}  // namespace strata::device::detail
