#include "device_stage.hpp"

#include <algorithm>

namespace strata::allpairs::detail {

device::Event DeviceStage::launch(const device::KernelDefinition& kernel,
                                  const device::LaunchGeometry& geometry,
                                  const device::KernelArgs& args) {
  std::shared_ptr<const device::CompiledKernel> compiled;
  {
    std::lock_guard guard(lock_);
    auto found = kernels_.find(kernel.name());
    if (found != kernels_.end()) compiled = found->second;
  }
  if (!compiled) {
    compiled = device_.compile(kernel);
    std::lock_guard guard(lock_);
    kernels_.emplace(kernel.name(), compiled);
  }
  return device_.queue(device::QueueKind::compute).launch(*compiled, geometry, args);
}

void DeviceStage::time(const device::Event& event, std::chrono::steady_clock::time_point since,
                       std::function<void(double)> timed) {
  event.on_complete([this, since, timed = std::move(timed)](std::exception_ptr) {
    const auto end = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point start;
    {
      std::lock_guard guard(lock_);
      start = std::max(since, last_end_);
      last_end_ = end;
    }
    timed(std::chrono::duration<double>(end - start).count());
  });
}

}  // namespace strata::allpairs::detail
