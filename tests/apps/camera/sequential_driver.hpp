#pragma once
// Runs an all-pairs application without the engine, for the tests: every item read, parsed,
// preprocessed on one device through a memory manager, then every wanted pair compared and
// postprocessed, one after another.

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "strata/allpairs/application.hpp"
#include "strata/device/device.hpp"

namespace strata::apps::camera::testing {

// A device context that compiles each kernel once and launches it on the compute queue.
class SimpleDeviceContext final : public allpairs::DeviceContext {
 public:
  explicit SimpleDeviceContext(device::Device& device) : device_(device) {}
  device::Device& device() override { return device_; }
  device::Event launch(const device::KernelDefinition& kernel,
                       const device::LaunchGeometry& geometry,
                       const device::KernelArgs& args) override;

 private:
  device::Device& device_;
  std::map<const device::KernelDefinition*, std::shared_ptr<const device::CompiledKernel>>
      compiled_;
};

// One pair's postprocessed result, as raw bytes.
struct RawPairResult {
  allpairs::ItemIndex left = 0;
  allpairs::ItemIndex right = 0;
  std::vector<std::byte> result;
};

// Every wanted pair (left < right) of `application`, computed on `device`.
std::vector<RawPairResult> run_all_pairs(const allpairs::ApplicationBase& application,
                                         device::Device& device);

// The preprocessed item `item` of `application` (its bytes after preprocess on `device`).
std::vector<std::byte> preprocessed_item(const allpairs::ApplicationBase& application,
                                         allpairs::ItemIndex item, device::Device& device);

}  // namespace strata::apps::camera::testing
