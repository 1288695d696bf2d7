#pragma once
// OpenCL objects (FFT scratch and staging buffers) released once the command using them has
// completed, for one device: swept on later calls, the rest waited for at destruction.

#include <CL/cl.h>

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace strata::device::detail {

class DeferredReleases {
 public:
  DeferredReleases() = default;
  DeferredReleases(const DeferredReleases&) = delete;
  DeferredReleases& operator=(const DeferredReleases&) = delete;
  // Waits for the commands still using objects, then releases them.
  ~DeferredReleases();

  // Releases `object` once `used_by` has completed (retains the event; null: at once). Releases
  // the objects of commands completed since the last call.
  void release_after(cl_mem object, cl_event used_by);
  // Objects whose commands had not completed at the last sweep.
  std::size_t pending() const;

 private:
  void sweep();  // lock_ held

  mutable std::mutex lock_;
  std::vector<std::pair<cl_mem, cl_event>> pending_;
};

}  // namespace strata::device::detail
