#pragma once
// The OpenCL backend's FFT: clFFT plans (one per direction) baked for one device's context,
// enqueued on its in-order queues with Strata's wait lists and events.

#include <clFFT.h>

#include <map>
#include <memory>
#include <mutex>

#include "opencl_device.hpp"

namespace strata::device::detail {

class OpenClQueue;

class ClfftPlan final : public FftPlan {
 public:
  // Bakes both plans (clFFT compiles its kernels here); throws DeviceError naming the device
  // when clFFT refuses the shape (its lengths must be products of 2, 3, 5, 7, 11 and 13).
  ClfftPlan(const FftShape& shape, OpenClDevice& device);
  ~ClfftPlan() override;
  // clFFT takes whole buffers: an array at an offset is copied into a buffer of the queue's on
  // that queue (and the result out of one), never passed as a sub-buffer (see GeneratedSource).
  // Each queue's staging and scratch buffers are made at its first transform and kept.
  Event forward(Queue& queue, FftArray real, FftArray spectrum,
                std::span<const Event> after) override;
  Event inverse(Queue& queue, FftArray spectrum, FftArray real,
                std::span<const Event> after) override;
  // Destroys its clFFT plans now (at exit, while clFFT still can); it runs no transform after.
  void release();

 private:
  Event run(clfftPlanHandle plan, clfftDirection direction, const char* name, Queue& queue,
            FftArray in, std::uint64_t in_bytes, FftArray out, std::uint64_t out_bytes,
            std::span<const Event> after);
  void check(clfftStatus status, const char* what) const;
  cl_mem allocate(std::uint64_t bytes, const char* name, const char* what);

  struct Library;
  static std::shared_ptr<Library> library();

  OpenClDevice& device_;
  std::shared_ptr<OpenClContext> context_;  // outlives the plans
  std::shared_ptr<Library> library_;        // likewise
  clfftPlanHandle forward_ = 0;
  clfftPlanHandle inverse_ = 0;
  bool has_forward_ = false;
  bool has_inverse_ = false;
  std::mutex lock_;  // clFFT's plans are not documented as safe to enqueue from several threads
  // Per in-order queue: clFFT's scratch (the larger of the two plans') and the staging buffers
  // of arrays at an offset (each of the larger of the real and spectrum sizes), made on first use.
  struct Buffers {
    cl_mem scratch = nullptr;
    cl_mem input = nullptr;
    cl_mem output = nullptr;
    bool sized = false;  // the scratch made (or none needed)
  };
  std::map<const OpenClQueue*, Buffers> buffers_;  // under lock_
};

}  // namespace strata::device::detail
