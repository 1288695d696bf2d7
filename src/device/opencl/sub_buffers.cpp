#include "sub_buffers.hpp"

#include <algorithm>

namespace strata::device::detail {

SubBuffers::~SubBuffers() {
  std::lock_guard guard(lock_);
  for (const auto& [object, event] : retired_) {
    clWaitForEvents(1, &event);
    clReleaseEvent(event);
    clReleaseMemObject(object);
  }
  for (const auto& [key, region] : regions_)
    clReleaseMemObject(region);
}

cl_mem SubBuffers::region(cl_mem parent, std::uint64_t offset, std::uint64_t bytes,
                          cl_int& status) {
  const Key key{parent, offset, bytes};
  std::lock_guard guard(lock_);
  sweep();
  if (const auto found = regions_.find(key); found != regions_.end()) {
    status = CL_SUCCESS;
    return found->second;
  }
  const cl_buffer_region part{offset, bytes};
  cl_mem made = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &part, &status);
  if (status != CL_SUCCESS) return nullptr;
  if (regions_.size() >= max_regions) {
    const auto oldest = regions_.find(made_.front());
    clReleaseMemObject(oldest->second);
    regions_.erase(oldest);
    made_.pop_front();
  }
  regions_.emplace(key, made);
  made_.push_back(key);
  return made;
}

void SubBuffers::release_parent(cl_mem parent) {
  std::lock_guard guard(lock_);
  for (auto at = regions_.lower_bound(Key{parent, 0, 0});
       at != regions_.end() && std::get<0>(at->first) == parent;) {
    clReleaseMemObject(at->second);
    at = regions_.erase(at);
  }
  made_.erase(std::remove_if(made_.begin(), made_.end(),
                             [parent](const Key& key) { return std::get<0>(key) == parent; }),
              made_.end());
  clReleaseMemObject(parent);
}

void SubBuffers::release_after(cl_mem object, cl_event used_by) {
  std::lock_guard guard(lock_);
  if (used_by == nullptr) {
    clReleaseMemObject(object);
    return;
  }
  clRetainEvent(used_by);
  retired_.emplace_back(object, used_by);
}

std::size_t SubBuffers::regions() const {
  std::lock_guard guard(lock_);
  return regions_.size();
}

std::size_t SubBuffers::pending() const {
  std::lock_guard guard(lock_);
  return retired_.size();
}

void SubBuffers::sweep() {
  std::size_t kept = 0;
  for (auto& [object, event] : retired_) {
    cl_int status = CL_QUEUED;
    const cl_int result =
        clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    // Completed (or failed, a negative status): nothing uses the object any more.
    if (result != CL_SUCCESS || status <= CL_COMPLETE) {
      clReleaseEvent(event);
      clReleaseMemObject(object);
    } else {
      retired_[kept++] = {object, event};
    }
  }
  retired_.resize(kept);
}

}  // namespace strata::device::detail
