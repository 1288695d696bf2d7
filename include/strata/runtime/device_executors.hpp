#pragma once
// Plugs devices into the runtime: per device one executor for its compute queue and one for
// each copy queue, so uploads, kernels and downloads of different tasks overlap (the
// region-templates paper's upload / process / download pipeline), and a BlockRunner that runs
// CPU kernels' blocks on the runtime's CPU pool.

#include <memory>

#include "strata/device/backends.hpp"
#include "strata/device/device.hpp"
#include "strata/runtime/runtime.hpp"

namespace strata::runtime {

// The executors of one device's three queues.
struct DeviceExecutors {
  device::Device* device = nullptr;
  ExecutorId compute;
  ExecutorId upload;    // host-to-device copies
  ExecutorId download;  // device-to-host copies
  ExecutorId of(device::QueueKind queue) const;
};

// Registers the three executors of `device` with `runtime`. A task on one of them runs its
// body on the executor's thread; the body enqueues asynchronous operations on the matching
// device queue and hands their event to complete_when(), so the thread never waits on them.
DeviceExecutors add_device(Runtime& runtime, device::Device& device);

// The task finishes when `event` completes (fails with its error); the body returns at once.
void complete_when(TaskContext& context, const device::Event& event);

// Runs CPU-kernel blocks as tasks on the runtime's CPU pool and waits for them (from a worker
// it helps instead of blocking).
std::shared_ptr<device::BlockRunner> cpu_pool_block_runner(Runtime& runtime);

}  // namespace strata::runtime
