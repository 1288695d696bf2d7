#pragma once
// JobSlots: the jobs in flight on one device, bounded (the rocket paper's concurrent job limit).
// Each slot owns the host buffer its comparison's result is copied back into, pinned where the
// device offers it: a CUDA copy into pageable memory blocks the thread that issues it until the
// kernel before it has run, so the device's queue would get one comparison at a time.

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <span>
#include <vector>

#include "strata/device/device.hpp"

namespace strata::allpairs::detail {

class JobSlots {
 public:
  // `count` slots (at least one), each with a result buffer of `result_bytes` from `device`.
  JobSlots(device::Device& device, unsigned count, std::size_t result_bytes);
  // Waits for a free slot and takes it.
  unsigned acquire();
  void release(unsigned slot);
  // The slot's result buffer.
  std::span<std::byte> result(unsigned slot) const;

 private:
  std::mutex lock_;
  std::condition_variable freed_;
  std::vector<device::HostBuffer> results_;
  std::vector<unsigned> free_;
  std::size_t result_bytes_;
};

}  // namespace strata::allpairs::detail
