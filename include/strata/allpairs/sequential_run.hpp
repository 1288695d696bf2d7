#pragma once
// A sequential run of an all-pairs application, without the engine: every item read, parsed and
// preprocessed on one device through a memory manager, then every wanted pair of the pair space
// compared and postprocessed, one after another. The reference the applications' tests compare
// the engine with, and a way to look at one preprocessed item.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "strata/allpairs/application.hpp"
#include "strata/allpairs/pair_space.hpp"

namespace strata::allpairs {

// A DeviceContext that compiles each kernel once for its device and launches it on the compute
// queue.
class KernelLauncher : public DeviceContext {
 public:
  explicit KernelLauncher(device::Device& device) : device_(device) {}
  device::Device& device() override { return device_; }
  device::Event launch(const device::KernelDefinition& kernel,
                       const device::LaunchGeometry& geometry,
                       const device::KernelArgs& args) override;

 private:
  device::Device& device_;
  std::mutex lock_;
  std::map<std::string, std::shared_ptr<const device::CompiledKernel>> compiled_;
};

// One pair's postprocessed result, as raw bytes.
struct RawPairResult {
  ItemIndex left = 0;
  ItemIndex right = 0;
  std::vector<std::byte> result;
};

// Every wanted pair of `space` (empty: every pair i < j), computed on `device`, in row order.
std::vector<RawPairResult> run_sequentially(const ApplicationBase& application,
                                            device::Device& device, PairSpace space = {});

// Typical times of the device stages measured alone (nothing else running): preprocessing the
// first `items` items, one at a time, waiting for each (the median); comparing every pair of them
// back to back on the device's queue, a batch timed whole (the median of three batches, divided
// by the pairs). Medians: a burst of other work on a shared machine does not move them.
struct StageMeans {
  std::uint64_t preprocessed = 0, compared = 0;
  double preprocess_seconds = 0, compare_seconds = 0;  // per item, per pair
};
StageMeans measure_stages(const ApplicationBase& application, device::Device& device,
                          ItemIndex items);

// The bytes of `item` after preprocessing on `device`.
std::vector<std::byte> preprocessed_item(const ApplicationBase& application, ItemIndex item,
                                         device::Device& device);

}  // namespace strata::allpairs
