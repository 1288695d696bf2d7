#pragma once
// Turns the `after` events of an operation (from any queue, device or backend) into an OpenCL
// wait list: native events of the same context go in directly, others through user events that
// their on_complete sets, carrying a failure along in a HostErrorSlot.

#include <CL/cl.h>

#include <memory>
#include <span>
#include <vector>

#include "opencl_event.hpp"

namespace strata::device::detail {

// The native wait list of one command; releases its user events when destroyed (the command
// keeps what it needs).
class WaitList {
 public:
  WaitList(cl_context context, const std::string& device, std::span<const Event> after);
  ~WaitList();
  WaitList(const WaitList&) = delete;
  WaitList& operator=(const WaitList&) = delete;

  cl_uint size() const { return static_cast<cl_uint>(events_.size()); }
  const cl_event* data() const { return events_.empty() ? nullptr : events_.data(); }
  // A dependency that already failed: the operation must not be enqueued.
  const std::exception_ptr& failed() const { return failed_; }
  // For the command's OpenClEventState.
  std::shared_ptr<HostErrorSlot> host_error;
  std::vector<std::shared_ptr<OpenClEventState>> carriers;

 private:
  void add_foreign(cl_context context, const std::string& device, const Event& event);

  std::vector<cl_event> events_;
  std::vector<cl_event> user_events_;
  std::exception_ptr failed_;
};

}  // namespace strata::device::detail
