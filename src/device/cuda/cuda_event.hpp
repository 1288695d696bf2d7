#pragma once
// The completion of one operation on a CUDA stream: a cudaEvent_t recorded right after it.
// wait() synchronizes on the native event, done() queries it, callbacks are armed by watching it
// on the EventPoller. An operation held back behind host-side events (see OrderedIssuer) gets
// its native event only when it is issued; until then waiters block on the host.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "event_poller.hpp"
#include "strata/device/event.hpp"

namespace strata::device::cuda {

class CudaEvent final : public EventState, public Pollable {
 public:
  static std::shared_ptr<CudaEvent> create(int ordinal, std::string device_id);
  ~CudaEvent() override;

  // Records the native event on `stream` (the device is current); once per event. On failure
  // the event completes with the error.
  void record(cudaStream_t stream);
  // Completes the event with `error` without issuing the operation (a dependency failed, the
  // queue went away, the operation could not be issued).
  void fail(std::exception_ptr error);
  // The recorded native event, or nullptr while the operation is held back.
  cudaEvent_t native();
  int ordinal() const { return ordinal_; }

  void wait() override;
  bool check() override;
  // The stream it was recorded on and its place there: a stream's events finish in order.
  PollOrder order() override;

 protected:
  void poll() override;
  void arm() override;

 private:
  CudaEvent(int ordinal, std::string device_id)
      : ordinal_(ordinal), device_id_(std::move(device_id)) {}
  // Completes from the native event's state; returns whether it finished.
  bool complete_from(cudaError_t status);

  std::weak_ptr<CudaEvent> self_;
  const int ordinal_;
  const std::string device_id_;
  std::mutex lock_;
  std::condition_variable settled_cv_;
  cudaEvent_t event_ = nullptr;
  PollOrder order_;
  bool settled_ = false;       // recorded or failed
  bool watch_wanted_ = false;  // armed before it was recorded
};

}  // namespace strata::device::cuda
