// Locality-aware placement and PATS's data-locality refinement: tasks go where their data already
// lies. With the memory manager (a host and a device space, through ChunkStaging) and with a fake
// staging hook that reports valid copies directly.

#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "strata/runtime/chunk_staging.hpp"
#include "strata/runtime/device_executors.hpp"
#include "strata/runtime/thread_pool_executor.hpp"
#include "test_support.hpp"

namespace strata::runtime {
namespace {

using testing::BothTakePart;
using testing::eventually;
using testing::Gate;

struct TwoSpaces {
  Runtime rt{testing::small_config(2, 1)};
  std::unique_ptr<device::Device> gpu = device::make_cpu_device(cpu_pool_block_runner(rt));
  device::Device* devices[1] = {gpu.get()};
  memory::MemoryOptions options() {
    memory::MemoryOptions o;
    o.device_capacity = 1 << 20;
    o.host_capacity = 4 << 20;
    return o;
  }
  memory::MemoryManager memory{options(), devices};
  ChunkStaging staging{memory, &rt};
  DeviceExecutors exec = add_device(rt, *gpu);
  TwoSpaces() {
    rt.set_staging_hook(&staging);
    staging.place(exec.compute, memory.space_of(*gpu));
  }
  ~TwoSpaces() { rt.wait_all(); }

  // A datum of `bytes` backed by a chunk whose only valid copy is on the host.
  DataHandle on_host(const std::string& name, std::uint64_t bytes) {
    const std::vector<std::byte> initial(bytes);
    DataHandle data = rt.create_data(name, bytes);
    staging.bind(data, memory.create_chunk(name, bytes, initial));
    return data;
  }
  // A datum whose only valid copy is on the device: written there by a task.
  DataHandle on_device(const std::string& name, std::uint64_t bytes) {
    DataHandle data = rt.create_data(name, bytes);
    staging.bind(data, memory.create_chunk(name, bytes));
    rt.submit(TaskSpec("write " + name).on(exec.compute).writes(data), [] {}).wait();
    return data;
  }
  // Where a task that reads `data` and may run on the CPU pool or the device runs.
  ExecutorId placed(std::initializer_list<DataHandle> data) {
    TaskSpec spec("reader");
    spec.on(rt.cpu()).on(exec.compute);
    for (const DataHandle& datum : data)
      spec.reads(datum);
    ExecutorId ran{99};
    rt.submit(std::move(spec), [&](TaskContext& context) { ran = context.executor(); }).wait();
    return ran;
  }
};

TEST(LocalityPlacement, StagingReportsWhereValidCopiesLie) {
  TwoSpaces node;
  DataHandle host = node.on_host("host", 4096);
  DataHandle device = node.on_device("device", 4096);
  const std::uint32_t gpu_space = node.memory.space_of(*node.gpu).index;
  EXPECT_EQ(node.staging.valid_copies(host),
            (std::vector<std::uint32_t>{node.memory.host().index}));
  EXPECT_EQ(node.staging.valid_copies(device), (std::vector<std::uint32_t>{gpu_space}));
  EXPECT_EQ(node.staging.memory_space(node.exec.compute), gpu_space);
  EXPECT_EQ(node.staging.memory_space(node.rt.cpu()), node.memory.host().index);
  EXPECT_TRUE(node.staging.valid_copies(node.rt.create_data("unbound")).empty());
}

TEST(LocalityPlacement, TasksGoWhereMostOfTheirBytesLie) {
  TwoSpaces node;
  node.rt.set_placement_policy(make_locality_placement());
  DataHandle host = node.on_host("host", 64 * 1024);
  DataHandle device = node.on_device("device", 16 * 1024);
  DataHandle small_on_device = node.on_device("small", 1024);
  EXPECT_EQ(node.placed({host}), node.rt.cpu());
  EXPECT_EQ(node.placed({device}), node.exec.compute);
  EXPECT_EQ(node.placed({host, small_on_device}), node.rt.cpu());  // 64 KiB on the host vs 1
  EXPECT_EQ(node.placed({device, small_on_device}), node.exec.compute);
}

TEST(LocalityPlacement, DataWrittenOnTheDeviceDrawsItsReaders) {
  // A chain: each step updates the datum; once a step ran on the device, the rest follow it.
  TwoSpaces node;
  node.rt.set_placement_policy(make_locality_placement());
  DataHandle datum = node.on_device("chain", 8 * 1024);
  for (int step = 0; step < 5; ++step) {
    ExecutorId ran{99};
    node.rt
        .submit(TaskSpec("step").on(node.rt.cpu()).on(node.exec.compute).updates(datum),
                [&](TaskContext& context) { ran = context.executor(); })
        .wait();
    EXPECT_EQ(ran, node.exec.compute) << "step " << step;
  }
}

TEST(LocalityPlacement, PulledTasksAreStagedInTheSpaceOfTheExecutorThatTookThem) {
  TwoSpaces node;
  node.rt.set_placement_policy(make_pats_policy());
  const std::uint32_t gpu_space = node.memory.space_of(*node.gpu).index;
  std::mutex lock;
  int checked = 0;
  for (int i = 0; i < 24; ++i) {
    DataHandle data = node.on_host("d" + std::to_string(i), 4096);
    node.rt.spawn(TaskSpec("staged")
                      .on(node.rt.cpu())
                      .on(node.exec.compute)
                      .updates(data)
                      .with_speedup(i + 1),
                  [&, data](TaskContext& context) {
                    const memory::ChunkView view = node.staging.view(context, data);
                    const std::uint32_t expected = context.executor() == node.exec.compute
                                                       ? gpu_space
                                                       : node.memory.host().index;
                    std::lock_guard guard(lock);
                    EXPECT_EQ(view.space.index, expected);
                    ++checked;
                  });
  }
  node.rt.wait_all();
  EXPECT_EQ(checked, 24);
}

// A staging hook that stages nothing and reports the valid copies a test gives it.
class FakeLocations final : public StagingHook {
 public:
  void stage(const StagingRequest&, std::function<void(std::exception_ptr)> done) override {
    done(nullptr);
  }
  void unstage(const StagingRequest&) override {}
  std::vector<std::uint32_t> valid_copies(const DataHandle& data) const override {
    std::lock_guard guard(lock_);
    auto found = copies.find(data.id());
    return found == copies.end() ? std::vector<std::uint32_t>{} : found->second;
  }
  std::optional<std::uint32_t> memory_space(ExecutorId executor) const override {
    std::lock_guard guard(lock_);
    auto found = spaces.find(executor.index);
    if (found == spaces.end()) return std::nullopt;
    return found->second;
  }
  mutable std::mutex lock_;
  std::map<std::uint64_t, std::vector<std::uint32_t>> copies;
  std::map<std::uint32_t, std::uint32_t> spaces;
};

// The gpu's first pick among a pool held back until both executors are busy.
std::string first_gpu_pick(double transfer_impact) {
  Runtime rt(testing::small_config(1, 1));
  auto owned = std::make_unique<ThreadPoolExecutor>("gpu", 1, make_priority_fifo_policy());
  owned->set_kind(ExecutorKind::device_compute, "gpu0");
  const ExecutorId gpu = rt.add_executor(std::move(owned));
  FakeLocations hook;
  hook.spaces = {{rt.cpu().index, 0}, {gpu.index, 7}};
  rt.set_staging_hook(&hook);
  rt.set_placement_policy(make_pats_policy({transfer_impact}));
  Gate gate;
  std::atomic<int> started{0};
  rt.spawn(TaskSpec("hold cpu"), [&] {
    started.fetch_add(1);
    gate.pass();
  });
  rt.spawn(TaskSpec("hold gpu").on(gpu), [&] {
    started.fetch_add(1);
    gate.pass();
  });
  EXPECT_TRUE(eventually([&] { return started.load() == 2; }));
  DataHandle far = rt.create_data("far", 1000);
  DataHandle near = rt.create_data("near", 1000);
  hook.copies = {{far.id(), {0}}, {near.id(), {7}}};
  std::mutex lock;
  std::vector<std::string> gpu_order;
  BothTakePart both(rt.cpu(), gpu);
  const auto submit = [&](const std::string& name, const DataHandle& data, double speedup) {
    rt.spawn(TaskSpec(name).on(rt.cpu()).on(gpu).reads(data).with_speedup(speedup),
             [&, name](TaskContext& context) {
               both.arrive(context.executor());
               std::lock_guard guard(lock);
               if (context.executor() == gpu) gpu_order.push_back(name);
             });
  };
  submit("fast, data on the host", far, 10);
  submit("a little slower, data on the gpu", near, 9);
  submit("slow", far, 1);
  gate.open();
  rt.wait_all();
  return gpu_order.empty() ? "" : gpu_order.front();
}

TEST(PatsDataLocality, ADeviceTakesATaskWhoseDataItHoldsWhenThatCostsLittleSpeedup) {
  EXPECT_EQ(first_gpu_pick(0), "fast, data on the host");              // plain PATS
  EXPECT_EQ(first_gpu_pick(0.2), "a little slower, data on the gpu");  // 9 >= 10 * 0.8
  EXPECT_EQ(first_gpu_pick(0.05), "fast, data on the host");           // 9 < 10 * 0.95
}

TEST(LocalityPlacement, ABusyHolderOfTheDataIsPassedOver) {
  Runtime rt(testing::small_config(1, 1));
  auto owned = std::make_unique<ThreadPoolExecutor>("gpu", 1, make_priority_fifo_policy());
  owned->set_kind(ExecutorKind::device_compute, "gpu0");
  const ExecutorId gpu = rt.add_executor(std::move(owned));
  FakeLocations hook;
  hook.spaces = {{rt.cpu().index, 0}, {gpu.index, 7}};
  rt.set_staging_hook(&hook);
  rt.set_placement_policy(make_locality_placement({1.0}));
  Gate gate;
  std::atomic<bool> held{false};
  rt.spawn(TaskSpec("hold gpu").on(gpu), [&] {
    held = true;
    gate.pass();
  });
  ASSERT_TRUE(eventually([&] { return held.load(); }));
  for (int i = 0; i < 3; ++i)
    rt.spawn(TaskSpec("queued").on(gpu), [] {});  // 3 queued on the gpu, none on the cpu
  DataHandle near = rt.create_data("near", 1000);
  hook.copies = {{near.id(), {7}}};
  ExecutorId ran{99};
  TaskHandle reader = rt.submit(TaskSpec("reader").on(rt.cpu()).on(gpu).reads(near),
                                [&](TaskContext& context) { ran = context.executor(); });
  reader.wait();  // runs on the CPU pool while the gpu is still held
  EXPECT_EQ(ran, rt.cpu());
  gate.open();
  rt.wait_all();
}

}  // namespace
}  // namespace strata::runtime
