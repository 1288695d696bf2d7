#pragma once
// The sub-buffers (regions of a cl_mem) that kernel arguments and FFTs at byte offsets need, for
// one device: each region is made once and kept until its parent buffer is released, so none is
// released while the device runs (NVIDIA's OpenCL crashed in clReleaseMemObject on sub-buffers,
// released after their commands had completed, under one lock). Also releases other objects
// (FFT scratch buffers) once the command using them has completed, swept on a later call.

#include <CL/cl.h>

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

namespace strata::device::detail {

class SubBuffers {
 public:
  // Regions kept at most; past it the oldest are released (a run that touched this many
  // distinct offsets).
  static constexpr std::size_t max_regions = 1 << 16;

  SubBuffers() = default;
  SubBuffers(const SubBuffers&) = delete;
  SubBuffers& operator=(const SubBuffers&) = delete;
  // Waits for the commands still using objects to release, then releases everything.
  ~SubBuffers();

  // The region [offset, offset + bytes) of `parent`, made on first use; null with `status` set
  // on failure. Owned here: callers never release it.
  cl_mem region(cl_mem parent, std::uint64_t offset, std::uint64_t bytes, cl_int& status);
  // Releases the regions of `parent`, then `parent` (the device's buffer release).
  void release_parent(cl_mem parent);
  // Releases `object` once `used_by` has completed (retains the event; null: at once).
  void release_after(cl_mem object, cl_event used_by);
  std::size_t regions() const;
  // Objects whose commands had not completed at the last sweep.
  std::size_t pending() const;

 private:
  using Key = std::tuple<cl_mem, std::uint64_t, std::uint64_t>;
  void sweep();  // lock_ held

  mutable std::mutex lock_;
  std::map<Key, cl_mem> regions_;
  std::deque<Key> made_;  // in order of making, for the cap
  std::vector<std::pair<cl_mem, cl_event>> retired_;
};

}  // namespace strata::device::detail
