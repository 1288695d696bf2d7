#pragma once
// A DeviceContext over one device for the tests: compiles each kernel once (by name) and
// launches it on the device's compute queue.

#include <map>
#include <memory>
#include <string>

#include "strata/allpairs/application.hpp"

namespace strata::apps::phylogeny::testing {

class SingleDeviceContext final : public allpairs::DeviceContext {
 public:
  explicit SingleDeviceContext(device::Device& device) : device_(device) {}
  device::Device& device() override { return device_; }
  device::Event launch(const device::KernelDefinition& kernel,
                       const device::LaunchGeometry& geometry,
                       const device::KernelArgs& args) override {
    auto& compiled = compiled_[kernel.name()];
    if (!compiled) compiled = device_.compile(kernel);
    return device_.queue(device::QueueKind::compute).launch(*compiled, geometry, args);
  }

 private:
  device::Device& device_;
  std::map<std::string, std::shared_ptr<const device::CompiledKernel>> compiled_;
};

}  // namespace strata::apps::phylogeny::testing
