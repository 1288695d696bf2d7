#pragma once
// DeviceStage: the DeviceContext of one device (a KernelLauncher) that also measures the device's
// busy time: with an in-order queue, a kernel runs from
// when it was launched or the previous one ended, whichever is later, until its event completes.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "strata/allpairs/sequential_run.hpp"

namespace strata::allpairs::detail {

class DeviceStage final : public KernelLauncher {
 public:
  explicit DeviceStage(device::Device& device) : KernelLauncher(device) {}

  // Calls `timed(seconds)` with the device time of the operations that end with `event`,
  // launched from `since`.
  void time(const device::Event& event, std::chrono::steady_clock::time_point since,
            std::function<void(double)> timed);

 private:
  std::mutex lock_;
  std::chrono::steady_clock::time_point last_end_{};
};

}  // namespace strata::allpairs::detail
