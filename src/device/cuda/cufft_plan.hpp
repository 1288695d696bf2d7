#pragma once
// The CUDA backend's FFT: cuFFT plans (one per direction), issued on a queue's stream in order
// with its other operations.

#include <cufft.h>

#include <memory>
#include <mutex>

#include "cuda_device.hpp"

namespace strata::device::cuda {

class CufftPlan final : public FftPlan {
 public:
  // Creates both plans on the device; throws DeviceError naming it when cuFFT refuses.
  CufftPlan(const FftShape& shape, CudaDevice& device);
  Event forward(Queue& queue, FftArray real, FftArray spectrum,
                std::span<const Event> after) override;
  Event inverse(Queue& queue, FftArray spectrum, FftArray real,
                std::span<const Event> after) override;

 private:
  // Both handles, kept alive by the operations still queued. A cuFFT plan has one stream at a
  // time, so setting it and executing happen under `lock`.
  struct Plans {
    Plans() = default;
    Plans(const Plans&) = delete;
    Plans& operator=(const Plans&) = delete;
    ~Plans();
    int ordinal = 0;
    cufftHandle forward = 0;
    cufftHandle inverse = 0;
    bool has_forward = false;
    bool has_inverse = false;
    std::mutex lock;
  };
  CudaQueue& native(Queue& queue, const char* direction) const;

  CudaDevice& device_;
  std::shared_ptr<Plans> plans_;
};

// "CUFFT_INVALID_SIZE", for messages.
const char* cufft_result_name(cufftResult result);

}  // namespace strata::device::cuda
