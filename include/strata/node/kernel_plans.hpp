#pragma once
// Kernel launches as plan operations (the kind "kernel"): a kernel defined on every rank's node
// runs on one of the rank's devices, with scalar arguments and chunk arguments that the memory
// manager places on that device. The driver plans them with plan_kernel(), batched like any plan;
// several small launches on one device as one task with plan_kernels() (the kind "kernels").

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "strata/cluster/driver.hpp"
#include "strata/cluster/plan_kinds.hpp"
#include "strata/device/device.hpp"
#include "strata/device/kernel.hpp"
#include "strata/runtime/device_executors.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::node {

// One argument of a planned launch, in the kernel's parameter order: a scalar's bytes, the
// chunk of uses[use] as an array of `type`, or (count) how many elements of `type` that chunk
// holds when the launch runs, as a u32 scalar — a late-sized chunk's size, known only then.
struct PlannedArg {
  bool chunk = false;
  bool count = false;
  std::uint32_t use = 0;
  device::ElementType type = device::ElementType::f32;
  std::array<unsigned char, 8> scalar{};
  // A chunk argument that starts at `scalar` (one element of `type`) in every element: the
  // kernel's task fills it on the device's compute queue just before the kernel (a reduction's
  // partial starting at the operator's identity), so the chunk is declared written, not read.
  bool fill = false;

  template <typename T>
  static PlannedArg value(T v) {
    static_assert(sizeof(T) <= 8);
    PlannedArg arg;
    arg.type = device::element_type_of<T>();
    std::memcpy(arg.scalar.data(), &v, sizeof(T));
    return arg;
  }
  static PlannedArg array(std::uint32_t use, device::ElementType type) {
    PlannedArg arg;
    arg.chunk = true;
    arg.use = use;
    arg.type = type;
    return arg;
  }
  static PlannedArg count_of(std::uint32_t use, device::ElementType type) {
    PlannedArg arg;
    arg.count = true;
    arg.use = use;
    arg.type = type;
    return arg;
  }

  template <class Archive>
  void serialize(Archive& archive) {
    archive(chunk, count, use, type, scalar, fill);
  }
};

// A late-sized chunk a launch writes (a filter's output): the kernel counts the elements it
// keeps in a u32 counter, uses[counter] (which it declares written), incrementing it atomically;
// the node zeroes the counter before the launch and, once the kernel ended, sets the size of
// uses[use] to the count times `element_bytes`.
struct LateSize {
  std::uint32_t use = 0;
  std::uint32_t counter = 0;
  std::uint32_t element_bytes = 4;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(use, counter, element_bytes);
  }
};

// The arguments of the "kernel" kind.
struct KernelLaunch {
  // `device`: every device of the rank that the kernel has an implementation for.
  static constexpr std::uint32_t any_device = 0xffffffffu;

  std::string kernel;        // defined on every rank with Node::define_kernel
  std::uint32_t device = 0;  // index into the rank's Node::devices(), or any_device
  // Devices of the rank (indexes into Node::devices()) the launch may run on, when not empty
  // (`device` is then ignored): with several, the rank's placement policy (runtime.placement)
  // picks one when the launch's task is ready, and the launch's run time is recorded in the
  // runtime's history under the kernel's name. Each must have an implementation of the kernel.
  std::vector<std::uint32_t> candidates;
  // The speedup of an accelerator over the CPU for this launch, for PATS; 0: learned from the
  // runtime's history (measured runs of this kernel on inputs of about this size), else none.
  double speedup = 0;
  std::array<std::uint64_t, 3> global{1, 1, 1};
  std::array<std::uint64_t, 3> block{0, 0, 0};  // 0: the backend chooses
  int dimensions = 1;
  std::vector<PlannedArg> args;
  std::vector<LateSize> sizes;  // the late-sized chunks it writes
  // Virtual-blocks kernels (the lightning paper's wrapper): the first block's index in the whole
  // launch, and per array argument (in parameter order) the global index of its chunk's first
  // element and the chunk's extents. The extents are compiled into the program (one per distinct
  // extents), the block offset and the origins passed at launch; without placements the block
  // offset is compiled in.
  std::array<std::uint64_t, 3> block_offset{0, 0, 0};
  std::vector<std::array<std::uint64_t, 6>> placements;  // offset x y z, extent x y z

  template <class Archive>
  void serialize(Archive& archive) {
    archive(kernel, device, candidates, speedup, global, block, dimensions, args, sizes,
            block_offset, placements);
  }
};

// The arguments of the "kernels" kind: launches on one device that one task runs one after
// another on the device's in-order compute queue, so that the runtime's cost per task (records,
// staging, dependencies) is paid once for all of them. PlannedArg::use indexes the op's uses,
// shared by the launches; a chunk two launches use is staged once. No late sizes.
struct KernelBatch {
  std::vector<KernelLaunch> launches;

  template <class Archive>
  void serialize(Archive& archive) {
    archive(launches);
  }
};

// Throws unless the batch holds a launch and every one runs on the first one's device and sets
// no late sizes.
void check_batch(const KernelBatch& batch);

// The node's side: kernels defined by name, compiled once per device when first launched.
class KernelPlans {
 public:
  // When a device's last measured kernel ended: the start of the next, for the history.
  struct QueueClock;
  KernelPlans(std::vector<device::Device*> devices,
              std::vector<runtime::DeviceExecutors> executors);
  // Throws if a kernel of that name is defined already.
  void define(device::KernelDefinition kernel);
  // Throws naming the kernel and what is defined when it is not.
  void check_defined(const std::string& kernel);
  // The devices the launch may run on (its candidates, any device, or its device), each one of
  // this node's with an implementation of the kernel; throws naming the kernel, the device and
  // `rank` otherwise.
  std::vector<std::uint32_t> devices_for(int rank, const KernelLaunch& launch);
  // The "kernel" kind's handler.
  void launch(cluster::PlanContext& context, const cluster::PlanOp& op);
  // The "kernels" kind's handler.
  void launch_batch(cluster::PlanContext& context, const cluster::PlanOp& op);

 private:
  // A kernel variant (one per device, block offset and placements: the lightning wrapper's
  // constants) compiled by a task of its own on the CPU pool, which its launches depend on: a
  // launch's many superblock variants compile in parallel, not one after another on the thread
  // that takes plan messages.
  struct Compilation {
    runtime::TaskHandle task;
    std::mutex lock;
    std::shared_ptr<const device::CompiledKernel> kernel;  // set by the task when it succeeded
  };
  std::shared_ptr<Compilation> compilation(runtime::Runtime& runtime, const KernelLaunch& launch,
                                           std::uint32_t device);
  // The compiled kernel, for a task that follows the compilation's (so it succeeded).
  static std::shared_ptr<const device::CompiledKernel> compiled(Compilation& compilation);

  std::vector<device::Device*> devices_;
  std::vector<std::shared_ptr<QueueClock>> clocks_;  // per device: its compute queue's
  std::vector<runtime::DeviceExecutors> executors_;
  std::mutex lock_;
  std::map<std::string, device::KernelDefinition> kernels_;
  // By kernel, device, block offset and placements.
  // Kernel, device, the array arguments' extents and the block offset (baked in only without
  // placements).
  using CompiledKey =
      std::tuple<std::string, std::uint32_t, std::vector<std::array<std::uint64_t, 3>>,
                 std::array<std::uint64_t, 3>>;
  std::map<CompiledKey, std::shared_ptr<Compilation>> compiled_;
};

}  // namespace strata::node
