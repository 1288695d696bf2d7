// The example of docs/runtime.md's "Placement policies" section, compiled and run: operations
// with known device speedups on a CPU pool and a device, under PATS. Keep the two in step.

#include <gtest/gtest.h>

#include <atomic>

#include "strata/runtime/runtime.hpp"
#include "strata/runtime/thread_pool_executor.hpp"

namespace strata::runtime {
namespace {

TEST(PlacementExample, PatsRunsAMixedBagOnACpuPoolAndADevice) {
  // --8<-- [docs/runtime.md: placement example]
  Config config;
  config.section<runtime::RuntimeSettings>().cpu_threads = 2;
  Runtime rt(config);
  // A device's compute queue (add_device() registers real ones with this kind).
  auto gpu_queue = std::make_unique<ThreadPoolExecutor>("gpu", 1, make_priority_fifo_policy());
  gpu_queue->set_kind(ExecutorKind::device_compute, "gpu0");
  const ExecutorId gpu = rt.add_executor(std::move(gpu_queue));

  rt.set_placement_policy(make_pats_policy());  // before submitting
  // One set of hints for every task of an operation: a speedup measured in a training run ...
  auto watershed = std::make_shared<CostHints>();
  watershed->speedup = 14;
  std::atomic<int> on_gpu{0};
  for (int tile = 0; tile < 16; ++tile) {
    rt.spawn(TaskSpec("watershed").on(rt.cpu()).on(gpu).with_hints(watershed),
             [&](TaskContext& ctx) { on_gpu += ctx.executor() == gpu; });
    // ... or per task: estimated times per executor kind (speedup 2 / 0.5 = 4).
    rt.spawn(TaskSpec("fill holes")
                 .on(rt.cpu())
                 .on(gpu)
                 .with_estimate(ExecutorKind::cpu, 2e-3)
                 .with_estimate(ExecutorKind::device_compute, 0.5e-3),
             [&](TaskContext& ctx) { on_gpu += ctx.executor() == gpu; });
  }
  rt.wait_all();
  // --8<--
  EXPECT_LE(on_gpu.load(), 32);
  EXPECT_EQ(rt.summary().tasks_succeeded, 32u);
}

}  // namespace
}  // namespace strata::runtime
