// Tasks whose data lives in memory-manager chunks: the runtime stages every chunk a task
// declares into its executor's memory space before it runs, with data 8x the device capacity.

#include "strata/runtime/chunk_staging.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "strata/runtime/device_executors.hpp"

namespace strata::runtime {
namespace {

using device::CpuBlock;
using device::Dim3;
using device::ElementType;
using device::KernelArg;
using device::KernelDefinition;
using device::LaunchGeometry;
using device::ParamAccess;
using device::QueueKind;
using memory::ChunkId;

constexpr std::uint32_t values_per_chunk = 2048;  // 8 KiB of u32

KernelDefinition add_kernel() {
  return KernelDefinition("add")
      .scalar<std::uint32_t>("n")
      .scalar<std::uint32_t>("amount")
      .array<std::uint32_t>("values", ParamAccess::read_write)
      .cpu([](const CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto amount = block.scalar<std::uint32_t>(1);
        auto* values = block.array<std::uint32_t>(2);
        for (auto i = block.begin.x; i < block.end.x && i < n; ++i)
          values[i] += amount;
      });
}

struct Fixture {
  Config config() {
    Config c;
    c.cpu_threads = 2;
    c.staging_max_tasks = 4;  // staged ahead per executor: the prefetch depth
    return c;
  }
  Runtime rt{config()};
  std::unique_ptr<device::Device> gpu = device::make_cpu_device(cpu_pool_block_runner(rt));
  device::Device* devices[1] = {gpu.get()};
  memory::MemoryOptions options() {
    memory::MemoryOptions o;
    o.device_capacity = 64 * 1024;
    o.host_capacity = 256 * 1024;
    return o;
  }
  memory::MemoryManager memory{options(), devices};
  ChunkStaging staging{memory, &rt};
  DeviceExecutors exec = add_device(rt, *gpu);
  Fixture() {
    rt.set_staging_hook(&staging);
    staging.place(exec.compute, memory.space_of(*gpu));
  }
  ~Fixture() { rt.wait_all(); }
};

TEST(ChunkStaging, KernelsOverDataEightTimesTheDeviceSeeEveryUpdate) {
  Fixture f;
  auto kernel = f.gpu->compile(add_kernel());
  constexpr int chunks = 64;  // 512 KiB: 8x the device, 2x the host
  std::vector<DataHandle> data;
  for (int c = 0; c < chunks; ++c) {
    std::vector<std::uint32_t> initial(values_per_chunk, static_cast<std::uint32_t>(c));
    const ChunkId chunk = f.memory.create_chunk("values " + std::to_string(c), values_per_chunk * 4,
                                                std::as_bytes(std::span(initial)));
    data.push_back(f.rt.create_data("values " + std::to_string(c), values_per_chunk * 4));
    f.staging.bind(data.back(), chunk);
  }
  constexpr int rounds = 3;
  for (int round = 1; round <= rounds; ++round) {
    for (int c = 0; c < chunks; ++c) {
      f.rt.submit(
          TaskSpec("add").on(f.exec.compute).updates(data[c]), [&, c, round](TaskContext& ctx) {
            const memory::ChunkView view = f.staging.view(ctx, data[c]);
            complete_when(ctx, f.gpu->queue(QueueKind::compute)
                                   .launch(*kernel, LaunchGeometry{Dim3{values_per_chunk}},
                                           {KernelArg::value(values_per_chunk),
                                            KernelArg::value(static_cast<std::uint32_t>(round)),
                                            view.argument(ElementType::u32)}));
          });
    }
  }
  // CPU tasks read the chunks in host memory and sum them.
  std::atomic<std::uint64_t> total{0};
  for (const DataHandle& d : data) {
    f.rt.submit(TaskSpec("sum").reads(d), [&, d](TaskContext& ctx) {
      const memory::ChunkView view = f.staging.view(ctx, d);
      const auto* values = static_cast<const std::uint32_t*>(view.host);
      total += std::accumulate(values, values + values_per_chunk, std::uint64_t{0});
    });
  }
  f.rt.wait_all();
  std::uint64_t expected = 0;
  for (int c = 0; c < chunks; ++c)
    expected += std::uint64_t{values_per_chunk} * (c + 1 + 2 + 3);
  EXPECT_EQ(total.load(), expected);
  const auto stats = f.memory.stats();
  EXPECT_GT(stats.spaces[f.memory.space_of(*f.gpu).index].evictions, 0u);
  std::printf("%s", stats.format().c_str());
}

TEST(ChunkStaging, ATaskNeedingMoreThanTheDeviceFailsWithTheOutOfMemoryReport) {
  Fixture f;
  std::vector<std::uint32_t> initial(40 * 1024, 1);  // 160 KiB > 64 KiB device
  const ChunkId chunk =
      f.memory.create_chunk("huge", initial.size() * 4, std::as_bytes(std::span(initial)));
  DataHandle huge = f.rt.create_data("huge", initial.size() * 4);
  f.staging.bind(huge, chunk);
  bool ran = false;
  f.rt.submit(TaskSpec("needs too much").on(f.exec.compute).reads(huge), [&] { ran = true; });
  try {
    f.rt.wait_all();
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("needs too much"), std::string::npos) << message;
    EXPECT_NE(message.find("out of memory in cpu"), std::string::npos) << message;
    EXPECT_NE(message.find("'huge'"), std::string::npos) << message;
  }
  EXPECT_FALSE(ran);
}

TEST(ChunkStaging, CopiesAppearInTheTraceOnTheTasksExecutor) {
  Fixture f;
  f.rt.enable_tracing();
  auto kernel = f.gpu->compile(add_kernel());
  std::vector<DataHandle> data;
  data.reserve(16);               // tasks read their handle while later ones are added
  for (int c = 0; c < 16; ++c) {  // 128 KiB through a 64 KiB device: fetches and evictions
    std::vector<std::uint32_t> initial(values_per_chunk, 1);
    const ChunkId chunk = f.memory.create_chunk("tile " + std::to_string(c), values_per_chunk * 4,
                                                std::as_bytes(std::span(initial)));
    data.push_back(f.rt.create_data("tile " + std::to_string(c), values_per_chunk * 4));
    f.staging.bind(data.back(), chunk);
    f.rt.submit(TaskSpec("add").on(f.exec.compute).updates(data.back()), [&, c](TaskContext& ctx) {
      complete_when(
          ctx, f.gpu->queue(QueueKind::compute)
                   .launch(*kernel, LaunchGeometry{Dim3{values_per_chunk}},
                           {KernelArg::value(values_per_chunk), KernelArg::value(std::uint32_t{1}),
                            f.staging.view(ctx, data[c]).argument(ElementType::u32)}));
    });
  }
  f.rt.wait_all();
  const std::string path = ::testing::TempDir() + "chunk_staging_trace.json";
  f.rt.write_trace(path);
  std::ifstream in(path);
  const auto trace = nlohmann::json::parse(in);
  const int lane = static_cast<int>(f.exec.compute.index) * 1000 + 999;
  int fetches = 0, evictions = 0;
  bool lane_named = false;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event.value("tid", -1) == lane) {
      lane_named = event["args"]["name"] == "cpu compute/memory";
    }
    if (event["ph"] != "X" || event.value("tid", -1) != lane) continue;
    const std::string name = event["name"];
    fetches += name.starts_with("copy host -> cpu: tile ");
    evictions += name.starts_with("copy cpu -> host: tile ");
    EXPECT_EQ(event["args"]["bytes"], values_per_chunk * 4);
  }
  EXPECT_TRUE(lane_named);
  EXPECT_EQ(fetches, 16);
  EXPECT_GT(evictions, 0);
}

}  // namespace
}  // namespace strata::runtime
