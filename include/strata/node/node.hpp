#pragma once
// Node: everything one process runs, built from one configuration in a fixed order and torn down
// in the reverse one — the network (MPI when started by an MPI launcher, else a cluster of one),
// the runtime, the devices found, the memory manager with a space per device, chunk staging, each
// device's compute and copy executors, the network's executor and the program that executes
// plans (with the node's kinds: kernel launches, and box copies and combine steps on devices).
// Front ends take these parts from the node; several can work on one node at once. Every rank
// reports its devices' loads to the driver (cluster::Driver::loads: per device, the free bytes of
// its memory space and the planned operations on its executors not finished yet).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "strata/base/config.hpp"
#include "strata/cluster/network.hpp"
#include "strata/cluster/program.hpp"
#include "strata/device/backends.hpp"
#include "strata/memory/memory_manager.hpp"
#include "strata/node/device_data_kinds.hpp"
#include "strata/node/kernel_plans.hpp"
#include "strata/runtime/chunk_staging.hpp"
#include "strata/runtime/device_executors.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::node {

// What a node is built from.
struct NodeOptions {
  // Every setting (docs/configuration.md): the runtime's threads and budgets, the devices to use
  // (`backends`, `opencl_*`), the memory spaces' capacities and spill directory, the network's
  // piece size. With several ranks each writes its own trace ("run.json" becomes
  // "run.rank1.json").
  Config config = Config::from_environment();
  // Adjusts the memory spaces (from the configuration) once the devices are known (room per
  // device, say); optional.
  std::function<void(memory::MemoryOptions&, std::span<device::Device* const>)> size_memory;
};

class Node {
 public:
  // Joins the MPI job when started by an MPI launcher (MPI may remove its arguments).
  Node(int& argc, char**& argv, NodeOptions options = {});
  // The same without command-line arguments.
  explicit Node(NodeOptions options = {});
  // On a network the caller keeps (it outlives the node): a process that builds several nodes
  // one after another in one MPI job, as test programs do.
  Node(NodeOptions options, cluster::Network& network);
  // Waits for every task, then takes the parts down in reverse order.
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  int rank() const;
  int size() const;
  const Config& config() const;

  cluster::Network& network();
  runtime::Runtime& runtime();
  memory::MemoryManager& memory();
  runtime::ChunkStaging& staging();
  // Plans: define operations on every rank, then run the driver's main (see program.hpp).
  cluster::Program& program();
  // Defines a kernel that plans launch on this rank's devices (kernel_plans.hpp: the "kernel"
  // kind); define the same ones on every rank, before program().run().
  void define_kernel(device::KernelDefinition kernel);
  // Plans `launch` on `rank` with the chunks of `uses` (PlannedArg::use indexes them); the
  // kernel must be defined (on every rank: this checks the driver's node).
  void plan_kernel(cluster::Driver& driver, int rank, const KernelLaunch& launch,
                   const std::vector<cluster::Use>& uses);
  // Plans the batch's launches, all on one device of `rank`, as one task that runs them in order
  // (kernel_plans.hpp: the "kernels" kind); `uses` are the chunks of all of them, each once.
  // `label` names the operation in errors and traces (default: "kernels" and the first kernel);
  // a batch of one is a plain launch.
  void plan_kernels(cluster::Driver& driver, int rank, const KernelBatch& batch,
                    const std::vector<cluster::Use>& uses, std::string label = {});

  // The devices found, in the configuration's backend order, and what each backend reported.
  std::span<device::Device* const> devices() const;
  const std::vector<device::BackendReport>& device_reports() const;
  // The executors of devices()[device]: its compute queue (whose tasks get their chunks in the
  // device's memory space) and its two copy queues.
  const runtime::DeviceExecutors& executors(std::size_t device) const;
  runtime::ExecutorId network_executor() const;

  // A piece of data named once: a chunk (with `initial` contents on the host, if given) and the
  // runtime's handle for it, bound so that tasks that declare the handle find the chunk in their
  // executor's memory space.
  runtime::ChunkData create_data(std::string name, std::uint64_t bytes,
                                 std::span<const std::byte> initial = {});
  // Destroys it; no task may declare it any more.
  void destroy_data(const runtime::ChunkData& data);

 private:
  void build(NodeOptions options);
  // Throws when the kernel is not defined or an argument names a use beyond `uses`.
  void check_launch(const KernelLaunch& launch, const std::vector<cluster::Use>& uses);

  std::unique_ptr<cluster::Network> owned_network_;
  cluster::Network* network_ = nullptr;
  std::unique_ptr<runtime::Runtime> runtime_;
  device::DeviceSet device_set_;
  std::vector<device::Device*> devices_;
  std::unique_ptr<memory::MemoryManager> memory_;
  std::unique_ptr<runtime::ChunkStaging> staging_;
  std::vector<runtime::DeviceExecutors> executors_;
  runtime::ExecutorId network_executor_;
  std::unique_ptr<KernelPlans> kernels_;
  std::unique_ptr<DeviceDataKinds> data_kinds_;
  std::unique_ptr<cluster::Program> program_;
};

}  // namespace strata::node
