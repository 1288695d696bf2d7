#pragma once
// The node's device variants of the cluster's data kinds: box copies ("copy_box", "copy_boxes")
// run on the device where their chunks were last written (or on the device they name) as
// rectangular copies on that device's queue, and a combine step ("combine") whose partials were all
// last written on one device runs there as a kernel generated for its operator and element type.
// Everything else goes to the host kinds they extend.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "strata/cluster/plan_kinds.hpp"
#include "strata/cluster/program.hpp"
#include "strata/device/device.hpp"
#include "strata/runtime/device_executors.hpp"

namespace strata::node {

class DeviceDataKinds {
 public:
  DeviceDataKinds(std::vector<device::Device*> devices,
                  std::vector<runtime::DeviceExecutors> executors);
  // Extends the program's "copy_box" and "combine" kinds (before its run()).
  void extend(cluster::Program& program);

 private:
  // "copy_box" and "copy_boxes": each run of consecutive steps whose chunks were written on one
  // device (and fit it together) runs there as one task; the others go to the host kind.
  void copy_boxes(const cluster::PlanKind& host, cluster::PlanContext& context,
                  const cluster::PlanOp& op);
  void copy_boxes_on(std::uint32_t device, cluster::PlanContext& context, const cluster::PlanOp& op,
                     const cluster::BoxCopies& copies);
  void combine(const cluster::PlanKind& host, cluster::PlanContext& context,
               const cluster::PlanOp& op);
  // The device whose compute queue last wrote every one of `inputs` (and `output`, unless the
  // operation writes it whole), if there is one.
  std::optional<std::uint32_t> device_of(cluster::PlanContext& context,
                                         std::span<const cluster::PlannedAccess> inputs,
                                         const cluster::PlannedAccess& output);
  // Whether the chunks of an operation fit the device's memory space together; those that do not
  // (a gather of a whole array larger than the device, say) go through the host instead.
  bool fits(cluster::PlanContext& context, std::uint32_t device,
            std::span<const cluster::PlannedAccess> accesses) const;
  std::shared_ptr<const device::CompiledKernel> combine_kernel(std::uint32_t device,
                                                               memory::ReduceOp op,
                                                               device::ElementType type);

  std::vector<device::Device*> devices_;
  std::vector<runtime::DeviceExecutors> executors_;
  std::mutex lock_;
  std::map<std::tuple<std::uint32_t, memory::ReduceOp, device::ElementType>,
           std::shared_ptr<const device::CompiledKernel>>
      kernels_;
};

}  // namespace strata::node
