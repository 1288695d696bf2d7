#pragma once
// The sub-buffers (regions of a cl_mem) that kernel arguments and FFTs at byte offsets need, for
// one device: created under one lock, and released only once the command that used them has
// completed, swept on a later creation. NVIDIA's OpenCL crashed in clReleaseMemObject when several
// threads released sub-buffers of one buffer right after enqueueing the commands using them.

#include <CL/cl.h>

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace strata::device::detail {

class SubBuffers {
 public:
  SubBuffers() = default;
  SubBuffers(const SubBuffers&) = delete;
  SubBuffers& operator=(const SubBuffers&) = delete;
  // Waits for the commands still using sub-buffers, then releases them all.
  ~SubBuffers();

  // The region [offset, offset + bytes) of `parent`; null with `status` set on failure.
  cl_mem create(cl_mem parent, std::uint64_t offset, std::uint64_t bytes, cl_int& status);
  // Releases `sub` once `used_by` has completed (retains the event; null: at once).
  void release_after(cl_mem sub, cl_event used_by);
  // Runs `release` (of a parent buffer) under the same lock as the sub-buffers' calls.
  template <typename Release>
  void locked(Release&& release) {
    std::lock_guard guard(lock_);
    release();
  }
  // Sub-buffers whose commands have not completed yet, as of the last sweep.
  std::size_t pending() const;

 private:
  void sweep();  // lock_ held

  mutable std::mutex lock_;
  std::vector<std::pair<cl_mem, cl_event>> retired_;
};

}  // namespace strata::device::detail
