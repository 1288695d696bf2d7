#pragma once
// The Event state of an enqueued OpenCL command: wraps its cl_event and completes from the
// driver's status (wait, poll or a clSetEventCallback), failing when the command failed or when
// a host-side (foreign) dependency it waited for failed.

#include <CL/cl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strata/device/event.hpp"

namespace strata::device::detail {

// The first error reported by the foreign (non-OpenCL or other-context) events a command waited
// for; the driver only sees user events set complete, so the error travels here.
class HostErrorSlot {
 public:
  void set(std::exception_ptr error);
  std::exception_ptr get() const;

 private:
  mutable std::mutex lock_;
  std::exception_ptr error_;
};

// Completion of one enqueued command (copy, kernel, marker).
class OpenClEventState final : public EventState,
                               public std::enable_shared_from_this<OpenClEventState> {
 public:
  // Takes over one reference to `event`. `host_error` and `carriers` are where failures of
  // host-side dependencies (direct, or through the native events in `carriers`) show up.
  OpenClEventState(cl_event event, cl_context context, std::shared_ptr<const std::string> device,
                   const char* operation, std::shared_ptr<HostErrorSlot> host_error,
                   std::vector<std::shared_ptr<OpenClEventState>> carriers);
  ~OpenClEventState() override;
  OpenClEventState(const OpenClEventState&) = delete;
  OpenClEventState& operator=(const OpenClEventState&) = delete;

  cl_event native() const { return event_; }
  cl_context context() const { return context_; }
  // Whether this event can fail although its command succeeded (a host-side dependency failed).
  bool carries_host_errors() const { return carries_host_errors_; }
  void wait() override;
  // Completes this event if `status` says the command finished (CL_COMPLETE or an error).
  void settle(cl_int status);
  // The driver's current status of the command.
  cl_int native_status() const;

 protected:
  void poll() override;
  void arm() override;

 private:
  // The error of a command that finished with `status`, through its dependencies' `carriers`.
  std::exception_ptr outcome(cl_int status,
                             const std::vector<std::shared_ptr<OpenClEventState>>& carriers) const;
  // This event's error, its command having finished or finishing soon (a later command that
  // waited for it did): worked out without completing it, which would run its callbacks here.
  std::exception_ptr finished_error();

  cl_event event_;
  cl_context context_;
  std::shared_ptr<const std::string> device_;
  const char* operation_;
  std::shared_ptr<HostErrorSlot> host_error_;
  bool carries_host_errors_;
  std::mutex settle_lock_;
  bool settled_ = false;
  std::exception_ptr outcome_;  // once settled
  std::vector<std::shared_ptr<OpenClEventState>> carriers_;
};

// An already-failed event, for operations refused because a dependency already failed.
Event failed_event(std::exception_ptr error);

}  // namespace strata::device::detail
