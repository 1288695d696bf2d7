#include "strata/device/device.hpp"

#include <new>

#include "strata/base/page_memory.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {

const char* to_string(BackendKind backend) {
  switch (backend) {
    case BackendKind::cpu:
      return "cpu";
    case BackendKind::opencl:
      return "opencl";
    case BackendKind::cuda:
      return "cuda";
  }
  return "?";
}

const char* to_string(QueueKind queue) {
  switch (queue) {
    case QueueKind::compute:
      return "compute";
    case QueueKind::host_to_device:
      return "host-to-device";
    case QueueKind::device_to_host:
      return "device-to-host";
  }
  return "?";
}

DeviceBuffer::~DeviceBuffer() {
  if (owned_ && device_ != nullptr && handle_ != nullptr) device_->release(handle_, bytes_);
}

HostBuffer HostBuffer::mapped(std::uint64_t bytes) {
  void* data = map_pages(bytes);
  if (data == nullptr) return {};
  return HostBuffer(data, bytes, [bytes](void* p) { unmap_pages(p, bytes); });
}

HostBuffer Device::allocate_host(std::uint64_t bytes) {
  HostBuffer buffer = HostBuffer::mapped(bytes);
  if (buffer.data() == nullptr) throw std::bad_alloc();
  return buffer;
}

DeviceBuffer Device::use_host_memory(void* /*data*/, std::uint64_t /*bytes*/) {
  return {};
}

std::shared_ptr<FftPlan> Device::plan_fft(const FftShape& shape) {
  const std::array<std::uint64_t, 3> key{shape.rows, shape.columns, shape.batch};
  std::lock_guard guard(fft_lock_);
  std::shared_ptr<FftPlan>& plan = fft_plans_[key];
  if (!plan) {
    try {
      plan = make_fft_plan(shape);
    } catch (...) {
      fft_plans_.erase(key);
      throw;
    }
  }
  return plan;
}

void Device::synchronize() {
  std::vector<Event> markers;
  for (int kind = 0; kind < queue_kinds; ++kind)
    markers.push_back(queue(static_cast<QueueKind>(kind)).marker());
  wait_all(markers);
}

}  // namespace strata::device
