#include "cuda_event.hpp"

#include <atomic>
#include <cstdint>

#include "cuda_error.hpp"

namespace strata::device::cuda {
namespace {

// Numbers recordings: the operations of one queue are issued one at a time (OrderedIssuer), so
// one stream's events get increasing numbers in the order they were recorded.
std::atomic<std::uint64_t> recordings{0};

}  // namespace

std::shared_ptr<CudaEvent> CudaEvent::create(int ordinal, std::string device_id) {
  std::shared_ptr<CudaEvent> event(new CudaEvent(ordinal, std::move(device_id)));
  event->self_ = event;
  return event;
}

CudaEvent::~CudaEvent() {
  if (event_ != nullptr) cudaEventDestroy(event_);
}

void CudaEvent::record(cudaStream_t stream) {
  cudaEvent_t event = nullptr;
  cudaError_t status = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (status == cudaSuccess) status = cudaEventRecord(event, stream);
  if (status != cudaSuccess) {
    if (event != nullptr) cudaEventDestroy(event);
    fail(error_for(status, device_id_, "recording an event"));
    return;
  }
  bool watch = false;
  {
    std::lock_guard guard(lock_);
    event_ = event;
    order_ = {stream, recordings.fetch_add(1)};
    settled_ = true;
    watch = watch_wanted_;
  }
  settled_cv_.notify_all();
  if (watch) EventPoller::instance().watch(self_.lock());
}

void CudaEvent::fail(std::exception_ptr error) {
  {
    std::lock_guard guard(lock_);
    settled_ = true;
  }
  settled_cv_.notify_all();
  complete(std::move(error));
}

cudaEvent_t CudaEvent::native() {
  std::lock_guard guard(lock_);
  return event_;
}

bool CudaEvent::complete_from(cudaError_t status) {
  if (status == cudaErrorNotReady) return false;
  complete(status == cudaSuccess ? nullptr : error_for(status, device_id_, "operation"));
  return true;
}

void CudaEvent::wait() {
  cudaEvent_t event = nullptr;
  {
    std::unique_lock guard(lock_);
    settled_cv_.wait(guard, [this] { return settled_; });
    event = event_;
  }
  if (event != nullptr) complete_from(cudaEventSynchronize(event));
  EventState::wait();
}

void CudaEvent::poll() {
  if (cudaEvent_t event = native()) complete_from(cudaEventQuery(event));
}

PollOrder CudaEvent::order() {
  std::lock_guard guard(lock_);
  return order_;
}

bool CudaEvent::check() {
  cudaEvent_t event = native();
  return event == nullptr || complete_from(cudaEventQuery(event));
}

void CudaEvent::arm() {
  {
    std::lock_guard guard(lock_);
    if (!settled_) {
      watch_wanted_ = true;  // record() starts the watch
      return;
    }
    if (event_ == nullptr) return;  // failed: already complete
  }
  EventPoller::instance().watch(self_.lock());
}

}  // namespace strata::device::cuda
