#pragma once
// DeviceStage: the DeviceContext of one device — kernels compiled once per device, launches on
// the compute queue — and the device's busy time: with an in-order queue, a kernel runs from
// when it was launched or the previous one ended, whichever is later, until its event completes.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "strata/allpairs/application.hpp"

namespace strata::allpairs::detail {

class DeviceStage final : public DeviceContext {
 public:
  explicit DeviceStage(device::Device& device) : device_(device) {}

  device::Device& device() override { return device_; }
  device::Event launch(const device::KernelDefinition& kernel,
                       const device::LaunchGeometry& geometry,
                       const device::KernelArgs& args) override;

  // Calls `timed(seconds)` with the device time of the operations that end with `event`,
  // launched from `since`.
  void time(const device::Event& event, std::chrono::steady_clock::time_point since,
            std::function<void(double)> timed);

 private:
  device::Device& device_;
  std::mutex lock_;
  std::map<std::string, std::shared_ptr<const device::CompiledKernel>> kernels_;
  std::chrono::steady_clock::time_point last_end_{};
};

}  // namespace strata::allpairs::detail
