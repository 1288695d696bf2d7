#include "wait_list.hpp"

#include "cl_error.hpp"

namespace strata::device::detail {

WaitList::WaitList(cl_context context, const std::string& device, std::span<const Event> after) {
  if (after.empty()) return;
  events_.reserve(after.size());
  for (const Event& event : after) {
    if (!event) continue;
    auto* native = dynamic_cast<OpenClEventState*>(event.state());
    if (native == nullptr || native->context() != context) {
      add_foreign(context, device, event);
      continue;
    }
    if (native->carries_host_errors()) {
      // It may fail without the driver knowing: pass its failure on, or refuse at once.
      if (event.done()) {
        if (auto error = native->error(); error && !failed_) failed_ = error;
        continue;
      }
      carriers.push_back(std::static_pointer_cast<OpenClEventState>(event.shared()));
    }
    events_.push_back(native->native());
  }
}

void WaitList::add_foreign(cl_context context, const std::string& device, const Event& event) {
  if (event.done()) {
    if (auto error = event.state()->error(); error && !failed_) failed_ = error;
    return;
  }
  cl_int status = CL_SUCCESS;
  cl_event user = clCreateUserEvent(context, &status);
  cl_check(status, device, "clCreateUserEvent (for a dependency on another queue or backend)");
  user_events_.push_back(user);
  events_.push_back(user);
  if (!host_error) host_error = std::make_shared<HostErrorSlot>();
  clRetainEvent(user);  // the callback's reference
  // The user event always completes (never with an error status, which some drivers propagate to
  // every later command of the queue); the failure travels through the slot instead.
  event.on_complete([user, slot = host_error](std::exception_ptr error) {
    if (error) slot->set(std::move(error));
    clSetUserEventStatus(user, CL_COMPLETE);
    clReleaseEvent(user);
  });
}

WaitList::~WaitList() {
  for (cl_event user : user_events_)
    clReleaseEvent(user);
}

}  // namespace strata::device::detail
