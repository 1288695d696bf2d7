#pragma once
// The CPU backend's FFT: FFTW3 single precision, one plan per direction for a single transform,
// executed over the batch in parallel by the queue's block runner.

#include <fftw3.h>

#include "strata/device/device.hpp"

namespace strata::device::detail {

class FftwPlan final : public FftPlan {
 public:
  // Plans with FFTW_ESTIMATE (no measuring: planning is quick and does not touch data).
  FftwPlan(const FftShape& shape, const Device& device);
  Event forward(Queue& queue, FftArray real, FftArray spectrum,
                std::span<const Event> after) override;
  Event inverse(Queue& queue, FftArray spectrum, FftArray real,
                std::span<const Event> after) override;

 private:
  // Both directions' FFTW plans, kept alive by the operations still queued.
  struct Plans {
    Plans() = default;
    Plans(const Plans&) = delete;
    Plans& operator=(const Plans&) = delete;
    ~Plans();
    fftwf_plan forward = nullptr;
    fftwf_plan inverse = nullptr;
  };
  const Device& device_;
  std::shared_ptr<Plans> plans_;
};

}  // namespace strata::device::detail
