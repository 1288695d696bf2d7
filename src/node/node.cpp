#include "strata/node/node.hpp"

#include <utility>

namespace strata::node {

Node::Node(int& argc, char**& argv, NodeOptions options)
    : owned_network_(std::make_unique<cluster::Network>(
          &argc, &argv, cluster::NetworkOptions::from(options.config))) {
  network_ = owned_network_.get();
  build(std::move(options));
}

Node::Node(NodeOptions options)
    : owned_network_(std::make_unique<cluster::Network>(
          nullptr, nullptr, cluster::NetworkOptions::from(options.config))) {
  network_ = owned_network_.get();
  build(std::move(options));
}

Node::Node(NodeOptions options, cluster::Network& network) : network_(&network) {
  build(std::move(options));
}

void Node::build(NodeOptions options) {
  runtime_ = std::make_unique<runtime::Runtime>(
      cluster::config_for_rank(options.config, network_->rank(), network_->size()));
  // CPU kernels' blocks run on the runtime's CPU pool.
  device_set_ =
      device::discover_devices(runtime_->config(), runtime::cpu_pool_block_runner(*runtime_));
  for (auto& device : device_set_.devices)
    devices_.push_back(device.get());
  memory::MemoryOptions memory = memory::MemoryOptions::from(options.config);
  if (options.size_memory) options.size_memory(memory, devices_);
  memory_ = std::make_unique<memory::MemoryManager>(memory, devices_);
  staging_ = std::make_unique<runtime::ChunkStaging>(*memory_, runtime_.get());
  runtime_->set_staging_hook(staging_.get());
  for (device::Device* device : devices_) {
    executors_.push_back(runtime::add_device(*runtime_, *device));
    staging_->place(executors_.back().compute, memory_->space_of(*device));
  }
  network_executor_ = runtime_->add_executor(network_->make_executor());
  kernels_ = std::make_unique<KernelPlans>(devices_, executors_);
  program_ = std::make_unique<cluster::Program>(
      cluster::ProgramParts{*network_, *runtime_, *memory_, *staging_, network_executor_});
  // Each device's load, for the driver's placement of new chunks and work: the free bytes of its
  // memory space and the plans' operations on its executors not finished yet.
  program_->set_load_reporter([this] {
    std::vector<cluster::DeviceLoad> loads;
    loads.reserve(devices_.size());
    for (std::size_t d = 0; d < devices_.size(); ++d) {
      const runtime::DeviceExecutors& queues = executors_[d];
      loads.push_back(cluster::DeviceLoad{memory_->free_bytes(memory_->space_of(*devices_[d])),
                                          program_->unfinished_on(queues.compute) +
                                              program_->unfinished_on(queues.upload) +
                                              program_->unfinished_on(queues.download)});
    }
    return loads;
  });
  program_->define_kind("kernel", [kernels = kernels_.get()](cluster::PlanContext& context,
                                                             const cluster::PlanOp& op) {
    kernels->launch(context, op);
  });
  program_->define_kind("kernels", [kernels = kernels_.get()](cluster::PlanContext& context,
                                                              const cluster::PlanOp& op) {
    kernels->launch_batch(context, op);
  });
  data_kinds_ = std::make_unique<DeviceDataKinds>(devices_, executors_);
  data_kinds_->extend(*program_);
}

Node::~Node() {
  try {
    runtime_->wait_all();
  } catch (...) {
  }
  // No message handler runs once an owned network stopped; on a network the caller keeps, the
  // program replaces its handlers as it goes.
  if (owned_network_) owned_network_->stop();
  program_.reset();
  data_kinds_.reset();
  kernels_.reset();
  // Staging goes while the runtime lives: it drains the memory manager, whose last copies report
  // to the runtime's trace and whose spill jobs run on its I/O pool.
  runtime_->set_staging_hook(nullptr);
  staging_.reset();
  // The runtime's executors use the devices and the network; the memory manager's buffers belong
  // to the devices.
  runtime_.reset();
  memory_.reset();
  devices_.clear();
  device_set_ = {};
  owned_network_.reset();
}

int Node::rank() const {
  return network_->rank();
}
int Node::size() const {
  return network_->size();
}
const Config& Node::config() const {
  return runtime_->config();
}
cluster::Network& Node::network() {
  return *network_;
}
runtime::Runtime& Node::runtime() {
  return *runtime_;
}
memory::MemoryManager& Node::memory() {
  return *memory_;
}
runtime::ChunkStaging& Node::staging() {
  return *staging_;
}
cluster::Program& Node::program() {
  return *program_;
}
void Node::define_kernel(device::KernelDefinition kernel) {
  kernels_->define(std::move(kernel));
}

void Node::check_launch(const KernelLaunch& launch, const std::vector<cluster::Use>& uses) {
  kernels_->check_defined(launch.kernel);
  // Ranks are built alike: the driver's node checks the candidates named.
  if (!launch.candidates.empty()) kernels_->devices_for(rank(), launch);
  for (const PlannedArg& arg : launch.args) {
    if ((arg.chunk || arg.count) && arg.use >= uses.size()) {
      throw Error("kernel '" + launch.kernel + "': an argument names use " +
                  std::to_string(arg.use) + " of " + std::to_string(uses.size()));
    }
  }
}

void Node::plan_kernel(cluster::Driver& driver, int rank, const KernelLaunch& launch,
                       const std::vector<cluster::Use>& uses) {
  check_launch(launch, uses);
  for (const LateSize& size : launch.sizes) {
    if (size.use >= uses.size() || size.counter >= uses.size()) {
      throw Error("kernel '" + launch.kernel + "': a late size names use " +
                  std::to_string(size.use) + " and counter " + std::to_string(size.counter) +
                  " of " + std::to_string(uses.size()));
    }
  }
  driver.plan_with(rank, "kernel", uses, launch, "kernel " + launch.kernel);
}

void Node::plan_kernels(cluster::Driver& driver, int rank, const KernelBatch& batch,
                        const std::vector<cluster::Use>& uses, std::string label) {
  if (batch.launches.size() == 1) {  // a launch of its own: it may leave its device to the rank
    plan_kernel(driver, rank, batch.launches.front(), uses);
    return;
  }
  check_batch(batch);
  for (const KernelLaunch& launch : batch.launches)
    check_launch(launch, uses);
  if (label.empty()) label = "kernels " + batch.launches.front().kernel;
  driver.plan_with(rank, "kernels", uses, batch, std::move(label));
}
std::span<device::Device* const> Node::devices() const {
  return devices_;
}
const std::vector<device::BackendReport>& Node::device_reports() const {
  return device_set_.reports;
}
const runtime::DeviceExecutors& Node::executors(std::size_t device) const {
  return executors_.at(device);
}
runtime::ExecutorId Node::network_executor() const {
  return network_executor_;
}

runtime::ChunkData Node::create_data(std::string name, std::uint64_t bytes,
                                     std::span<const std::byte> initial) {
  return staging_->create_data(std::move(name), bytes, initial);
}

void Node::destroy_data(const runtime::ChunkData& data) {
  staging_->destroy_data(data);
}

}  // namespace strata::node
