#include "job_slots.hpp"

#include "strata/base/error.hpp"

namespace strata::allpairs::detail {

JobSlots::JobSlots(device::Device& device, unsigned count, std::size_t result_bytes)
    : result_bytes_(result_bytes) {
  if (count == 0) throw Error("jobs_per_device must be at least 1");
  for (unsigned slot = 0; slot < count; ++slot) {
    results_.push_back(device.allocate_host(result_bytes));
    free_.push_back(count - 1 - slot);  // slot 0 is taken first
  }
}

unsigned JobSlots::acquire() {
  std::unique_lock guard(lock_);
  freed_.wait(guard, [&] { return !free_.empty(); });
  const unsigned slot = free_.back();
  free_.pop_back();
  return slot;
}

void JobSlots::release(unsigned slot) {
  {
    std::lock_guard guard(lock_);
    free_.push_back(slot);
  }
  freed_.notify_one();
}

std::span<std::byte> JobSlots::result(unsigned slot) const {
  return {static_cast<std::byte*>(results_.at(slot).data()), result_bytes_};
}

}  // namespace strata::allpairs::detail
