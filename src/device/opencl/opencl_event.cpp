#include "opencl_event.hpp"

#include <fmt/format.h>

#include "cl_error.hpp"
#include "strata/device/errors.hpp"

namespace strata::device::detail {
namespace {

void CL_CALLBACK on_native_complete(cl_event, cl_int status, void* data) {
  auto* holder = static_cast<std::shared_ptr<OpenClEventState>*>(data);
  (*holder)->settle(status);
  delete holder;
}

}  // namespace

void HostErrorSlot::set(std::exception_ptr error) {
  std::lock_guard guard(lock_);
  if (!error_) error_ = std::move(error);
}

std::exception_ptr HostErrorSlot::get() const {
  std::lock_guard guard(lock_);
  return error_;
}

OpenClEventState::OpenClEventState(cl_event event, cl_context context,
                                   std::shared_ptr<const std::string> device, const char* operation,
                                   std::shared_ptr<HostErrorSlot> host_error,
                                   std::vector<std::shared_ptr<OpenClEventState>> carriers)
    : event_(event),
      context_(context),
      device_(std::move(device)),
      operation_(operation),
      host_error_(std::move(host_error)),
      carries_host_errors_(host_error_ != nullptr || !carriers.empty()),
      carriers_(std::move(carriers)) {}

OpenClEventState::~OpenClEventState() {
  if (event_ != nullptr) clReleaseEvent(event_);
}

cl_int OpenClEventState::native_status() const {
  cl_int status = CL_QUEUED;
  const cl_int result =
      clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
  return result == CL_SUCCESS ? status : result;
}

void OpenClEventState::settle(cl_int status) {
  if (status > CL_COMPLETE) return;  // queued, submitted or running
  std::vector<std::shared_ptr<OpenClEventState>> carriers;
  {
    std::lock_guard guard(settle_lock_);
    if (settled_) return;
    carriers = carriers_;
  }
  std::exception_ptr error = outcome(status, carriers);
  std::vector<std::shared_ptr<OpenClEventState>> released;  // after the lock
  {
    std::lock_guard guard(settle_lock_);
    if (settled_) return;  // a concurrent settle came to the same outcome first
    settled_ = true;
    outcome_ = error;
    released.swap(carriers_);
  }
  complete(error);
}

std::exception_ptr OpenClEventState::outcome(
    cl_int status, const std::vector<std::shared_ptr<OpenClEventState>>& carriers) const {
  std::exception_ptr error = host_error_ ? host_error_->get() : nullptr;
  // The command ran after these native dependencies, so they have finished too.
  for (const auto& carrier : carriers) {
    if (!error) error = carrier->finished_error();
  }
  if (!error && status < 0) {
    error = std::make_exception_ptr(DeviceError(
        fmt::format("opencl {}: {} failed: {}", *device_, operation_, cl_error_name(status))));
  }
  return error;
}

std::exception_ptr OpenClEventState::finished_error() {
  cl_int status = native_status();
  if (status > CL_COMPLETE) {
    clWaitForEvents(1, &event_);  // an error status shows in native_status()
    status = native_status();
  }
  std::vector<std::shared_ptr<OpenClEventState>> carriers;
  {
    std::lock_guard guard(settle_lock_);
    if (settled_) return outcome_;
    carriers = carriers_;
  }
  return outcome(status, carriers);
}

void OpenClEventState::wait() {
  clWaitForEvents(1, &event_);  // an error status shows in native_status()
  settle(native_status());
  EventState::wait();
}

void OpenClEventState::poll() {
  settle(native_status());
}

void OpenClEventState::arm() {
  auto* holder = new std::shared_ptr<OpenClEventState>(shared_from_this());
  const cl_int result = clSetEventCallback(event_, CL_COMPLETE, on_native_complete, holder);
  if (result != CL_SUCCESS) {
    delete holder;
    // Without a callback nobody would complete this event: wait for the command here (the
    // error, if any, reaches the callbacks through complete()).
    try {
      wait();
    } catch (...) {  // NOLINT(bugprone-empty-catch)
    }
  }
}

Event failed_event(std::exception_ptr error) {
  auto state = std::make_shared<EventState>();
  state->complete(std::move(error));
  return Event(std::move(state));
}

}  // namespace strata::device::detail
