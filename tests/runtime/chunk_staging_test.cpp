// Tasks whose data lives in memory-manager chunks: the runtime stages every chunk a task
// declares into its executor's memory space before it runs, with data 8x the device capacity.

#include "strata/runtime/chunk_staging.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

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
    auto& runtime = c.section<RuntimeSettings>();
    runtime.cpu_threads = 2;
    runtime.staging_max_tasks = 4;  // staged ahead per executor: the prefetch depth
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

TEST(ChunkStaging, RepeatedSweepsOverMoreDataThanTheDeviceKeepMostOfItThere) {
  // Rounds over 12 chunks (96 KiB) through the 64 KiB device, each round after the last (as
  // iterations after a reduction), all submitted at once. Evicting the least recently used copy
  // brings in every chunk in every round; evicting the one used again last (the declared tasks
  // tell) keeps most of them.
  Fixture f;
  auto kernel = f.gpu->compile(add_kernel());
  constexpr int chunks = 12;
  constexpr int rounds = 5;
  std::vector<DataHandle> data;
  for (int c = 0; c < chunks; ++c) {
    std::vector<std::uint32_t> initial(values_per_chunk, 0);
    const ChunkId chunk = f.memory.create_chunk("values " + std::to_string(c), values_per_chunk * 4,
                                                std::as_bytes(std::span(initial)));
    data.push_back(f.rt.create_data("values " + std::to_string(c), values_per_chunk * 4));
    f.staging.bind(data.back(), chunk);
  }
  TaskHandle previous_round;
  for (int round = 1; round <= rounds; ++round) {
    std::vector<TaskHandle> tasks;
    for (int c = 0; c < chunks; ++c) {
      TaskSpec spec("add");
      spec.on(f.exec.compute).updates(data[c]);
      if (previous_round) spec.after(previous_round);
      tasks.push_back(f.rt.submit(std::move(spec), [&, c](TaskContext& ctx) {
        const memory::ChunkView view = f.staging.view(ctx, data[c]);
        complete_when(ctx, f.gpu->queue(QueueKind::compute)
                               .launch(*kernel, LaunchGeometry{Dim3{values_per_chunk}},
                                       {KernelArg::value(values_per_chunk),
                                        KernelArg::value(std::uint32_t{1}),
                                        view.argument(ElementType::u32)}));
      }));
    }
    previous_round = f.rt.submit(TaskSpec("round").after(tasks), [](TaskContext&) {});
  }
  f.rt.wait_all();
  const auto stats = f.memory.stats();
  const std::uint64_t moved_in =
      stats.bytes_moved.at({f.memory.host().index, f.memory.space_of(*f.gpu).index});
  const std::uint64_t chunk_bytes = values_per_chunk * 4;
  std::printf("chunks copied to the device: %llu in %d rounds of %d\n",
              static_cast<unsigned long long>(moved_in / chunk_bytes), rounds, chunks);
  EXPECT_LE(moved_in, chunk_bytes * (chunks + (rounds - 1) * chunks * 3 / 4));
  for (const DataHandle& d : data) {
    f.rt.submit(TaskSpec("check").reads(d), [&, d](TaskContext& ctx) {
      const auto* values = static_cast<const std::uint32_t*>(f.staging.view(ctx, d).host);
      for (std::uint32_t i = 0; i < values_per_chunk; ++i)
        ASSERT_EQ(values[i], std::uint32_t{rounds}) << d.name() << " [" << i << "]";
    });
  }
  f.rt.wait_all();
}

TEST(ChunkStaging, ALaterTasksChunkIsCopiedInWhileAnEarlierTasksKernelIsHeldBack) {
  Fixture f;
  auto kernel = f.gpu->compile(add_kernel());
  // Eight 16 KiB chunks through a 64 KiB device; the runtime stages up to half the device ahead
  // (two tasks). The first task's kernel waits for a gate (and the later kernels queue behind it
  // on the in-order compute queue), yet a later task's chunk is copied in and its body runs.
  constexpr int chunks = 8;
  std::vector<DataHandle> data;
  std::vector<ChunkId> ids;
  for (int c = 0; c < chunks; ++c) {
    std::vector<std::uint32_t> initial(values_per_chunk * 2, static_cast<std::uint32_t>(c));
    ids.push_back(f.memory.create_chunk("tile " + std::to_string(c), values_per_chunk * 8,
                                        std::as_bytes(std::span(initial))));
    data.push_back(f.rt.create_data("tile " + std::to_string(c), values_per_chunk * 8));
    f.staging.bind(data.back(), ids.back());
  }
  device::Event gate = device::Event::manual();  // holds the first task's kernel back
  std::vector<TaskHandle> tasks;
  std::vector<std::promise<void>> staged(chunks);
  for (int c = 0; c < chunks; ++c) {
    tasks.push_back(
        f.rt.submit(TaskSpec("add").on(f.exec.compute).updates(data[c]), [&, c](TaskContext& ctx) {
          const memory::ChunkView view = f.staging.view(ctx, data[c]);
          staged[c].set_value();  // its chunk is on the device: the task runs
          const std::span<const device::Event> after =
              c == 0 ? std::span<const device::Event>(&gate, 1) : std::span<const device::Event>();
          complete_when(ctx, f.gpu->queue(QueueKind::compute)
                                 .launch(*kernel, LaunchGeometry{Dim3{values_per_chunk * 2}},
                                         {KernelArg::value(values_per_chunk * 2),
                                          KernelArg::value(std::uint32_t{1}),
                                          view.argument(ElementType::u32)},
                                         after));
        }));
  }
  // Task 1 had its chunk copied in (and ran) although task 0's kernel has not run.
  staged[0].get_future().wait();
  staged[1].get_future().wait();
  EXPECT_FALSE(tasks[0].done());
  const auto before = f.memory.stats();
  EXPECT_GE((before.bytes_moved.at({f.memory.host().index, f.memory.space_of(*f.gpu).index})),
            2u * values_per_chunk * 8);
  gate.state()->complete();
  f.rt.wait_all();
  for (int c = 0; c < chunks; ++c) {
    std::vector<std::uint32_t> out(values_per_chunk * 2);
    f.memory.read(ids[c], std::as_writable_bytes(std::span(out)));
    EXPECT_EQ(out.front(), static_cast<std::uint32_t>(c + 1)) << "tile " << c;
    EXPECT_EQ(out.back(), static_cast<std::uint32_t>(c + 1)) << "tile " << c;
  }
}

KernelDefinition fill_kernel() {
  return KernelDefinition("fill")
      .scalar<std::uint32_t>("n")
      .scalar<std::uint32_t>("value")
      .array<std::uint32_t>("values", ParamAccess::write)
      .cpu([](const CpuBlock& block) {
        const auto n = block.scalar<std::uint32_t>(0);
        const auto value = block.scalar<std::uint32_t>(1);
        auto* values = block.array<std::uint32_t>(2);
        for (auto i = block.begin.x; i < block.end.x && i < n; ++i)
          values[i] = value;
      });
}

TEST(ChunkStaging, AQueueOrderedReaderOfAChunkBeingWrittenIsEnqueuedBehindTheWriter) {
  Fixture f;
  auto fill = f.gpu->compile(fill_kernel());
  auto add = f.gpu->compile(add_kernel());
  // The chunk's host copy holds 7s; a kernel held back by a gate writes 100s on the device; a
  // queue-ordered task that adds 1 must be enqueued behind it (its body runs while the writer's
  // kernel waits) and must use the device copy being written, not fetch the stale host copy.
  std::vector<std::uint32_t> initial(values_per_chunk, 7);
  const ChunkId id =
      f.memory.create_chunk("written", values_per_chunk * 4, std::as_bytes(std::span(initial)));
  const DataHandle data = f.rt.create_data("written", values_per_chunk * 4);
  f.staging.bind(data, id);
  device::Event gate = device::Event::manual();
  device::Queue& queue = f.gpu->queue(QueueKind::compute);
  const TaskHandle writer = f.rt.submit(
      TaskSpec("fill").on(f.exec.compute).writes(data).in_queue_order(), [&](TaskContext& ctx) {
        const memory::ChunkView view = f.staging.view(ctx, data);
        complete_when(ctx, queue.launch(*fill, LaunchGeometry{Dim3{values_per_chunk}},
                                        {KernelArg::value(values_per_chunk),
                                         KernelArg::value(std::uint32_t{100}),
                                         view.argument(ElementType::u32)},
                                        std::span(&gate, 1)));
      });
  std::promise<void> reader_ran;
  const TaskHandle reader = f.rt.submit(
      TaskSpec("add").on(f.exec.compute).updates(data).in_queue_order(), [&](TaskContext& ctx) {
        const memory::ChunkView view = f.staging.view(ctx, data);
        reader_ran.set_value();
        complete_when(ctx, queue.launch(*add, LaunchGeometry{Dim3{values_per_chunk}},
                                        {KernelArg::value(values_per_chunk),
                                         KernelArg::value(std::uint32_t{1}),
                                         view.argument(ElementType::u32)}));
      });
  reader_ran.get_future().wait();
  EXPECT_FALSE(writer.done());
  EXPECT_FALSE(reader.done());
  // Nothing was copied in: a stale copy fetched now could land after the writer's kernel.
  const auto moved = f.memory.stats().bytes_moved;
  EXPECT_FALSE(moved.contains({f.memory.host().index, f.memory.space_of(*f.gpu).index}));
  gate.state()->complete();
  f.rt.wait_all();
  std::vector<std::uint32_t> out(values_per_chunk);
  f.memory.read(id, std::as_writable_bytes(std::span(out)));
  EXPECT_EQ(out.front(), 101u);
  EXPECT_EQ(out.back(), 101u);
}

TEST(ChunkStaging, QueueOrderedKernelsOverDataEightTimesTheDeviceSeeEveryUpdate) {
  Fixture f;
  auto kernel = f.gpu->compile(add_kernel());
  constexpr int chunks = 32;
  std::vector<DataHandle> data;
  std::vector<ChunkId> ids;
  for (int c = 0; c < chunks; ++c) {
    std::vector<std::uint32_t> initial(values_per_chunk * 4, static_cast<std::uint32_t>(c));
    ids.push_back(f.memory.create_chunk("block " + std::to_string(c), values_per_chunk * 16,
                                        std::as_bytes(std::span(initial))));
    data.push_back(f.rt.create_data("block " + std::to_string(c), values_per_chunk * 16));
    f.staging.bind(data.back(), ids.back());
  }
  // Each round updates every block; a block's next update is enqueued behind the previous one,
  // while evictions make room for the others (32 KiB blocks through a 64 KiB device).
  constexpr int rounds = 4;
  for (int round = 1; round <= rounds; ++round) {
    for (int c = 0; c < chunks; ++c) {
      f.rt.submit(TaskSpec("add").on(f.exec.compute).updates(data[c]).in_queue_order(),
                  [&, c, round](TaskContext& ctx) {
                    const memory::ChunkView view = f.staging.view(ctx, data[c]);
                    complete_when(ctx,
                                  f.gpu->queue(QueueKind::compute)
                                      .launch(*kernel, LaunchGeometry{Dim3{values_per_chunk * 4}},
                                              {KernelArg::value(values_per_chunk * 4),
                                               KernelArg::value(static_cast<std::uint32_t>(round)),
                                               view.argument(ElementType::u32)}));
                  });
    }
  }
  f.rt.wait_all();
  for (int c = 0; c < chunks; ++c) {
    std::vector<std::uint32_t> out(values_per_chunk * 4);
    f.memory.read(ids[c], std::as_writable_bytes(std::span(out)));
    EXPECT_EQ(out.front(), static_cast<std::uint32_t>(c + 1 + 2 + 3 + 4)) << "block " << c;
    EXPECT_EQ(out.back(), static_cast<std::uint32_t>(c + 1 + 2 + 3 + 4)) << "block " << c;
  }
}

TEST(ChunkStaging, SpillFilesAreWrittenAndReadOnTheIoExecutorAndTheSummaryShowsMemory) {
  Fixture f;
  // CPU tasks (host memory, 256 KiB) over 512 KiB of chunks: half of them live on disk.
  constexpr int chunks = 64;
  std::vector<DataHandle> data;
  for (int c = 0; c < chunks; ++c) {
    std::vector<std::uint32_t> initial(values_per_chunk, static_cast<std::uint32_t>(c));
    const ChunkId chunk = f.memory.create_chunk("values " + std::to_string(c), values_per_chunk * 4,
                                                std::as_bytes(std::span(initial)));
    data.push_back(f.rt.create_data("values " + std::to_string(c), values_per_chunk * 4));
    f.staging.bind(data.back(), chunk);
  }
  std::atomic<int> wrong{0};
  std::atomic<std::uint64_t> io_jobs_seen{0};
  for (int round = 0; round < 2; ++round) {
    for (int c = 0; c < chunks; ++c) {
      f.rt.submit(TaskSpec("bump").updates(data[c]), [&, c, round](TaskContext& ctx) {
        auto* values = static_cast<std::uint32_t*>(f.staging.view(ctx, data[c]).host);
        if (values[0] != static_cast<std::uint32_t>(c + round)) ++wrong;
        for (std::uint32_t i = 0; i < values_per_chunk; ++i)
          ++values[i];
      });
    }
  }
  f.rt.wait_all();
  EXPECT_EQ(wrong.load(), 0);
  const RunSummary summary = f.rt.summary();
  for (const ExecutorSummary& executor : summary.executors)
    if (executor.name == "io") io_jobs_seen = executor.tasks;
  const auto stats = f.memory.stats();
  const std::uint64_t spilled =
      stats.bytes_moved.at({f.memory.host().index, f.memory.disk().index}) +
      stats.bytes_moved.at({f.memory.disk().index, f.memory.host().index});
  // One I/O job per spill write or read (file removals add more); none ran anywhere else.
  EXPECT_GE(io_jobs_seen.load(), spilled / (values_per_chunk * 4));
  EXPECT_EQ(summary.tasks_succeeded, 2u * chunks);  // posted I/O is not counted among tasks
  const std::string text = summary.format();
  EXPECT_NE(text.find("memory:"), std::string::npos) << text;
  EXPECT_NE(text.find("moved host -> disk"), std::string::npos) << text;
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
  // Copies go on the executor's memory lanes: "cpu compute/memory", then "... #2" and so on
  // for copies that overlap.
  std::set<std::int64_t> lanes;
  for (const auto& event : trace["traceEvents"]) {
    if (event.at("ph") != "M" || event.at("name") != "thread_name") continue;
    const std::string name = event.at("args").at("name");
    if (name.starts_with("cpu compute/memory")) lanes.insert(event.at("tid").get<std::int64_t>());
  }
  const std::int64_t first_lane = std::int64_t{f.exec.compute.index} * 1000 + 999;
  const bool lane_named = lanes.contains(first_lane);
  int fetches = 0, evictions = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event.at("ph") != "X" || !lanes.contains(event.at("tid").get<std::int64_t>())) continue;
    const std::string name = event["name"];
    fetches += name.starts_with("copy host -> cpu: tile ");
    evictions += name.starts_with("copy cpu -> host: tile ");
    EXPECT_EQ(event["args"]["bytes"], values_per_chunk * 4);
  }
  bool memory_counter = false;
  for (const auto& event : trace["traceEvents"])
    memory_counter |= event["ph"] == "C" && event["name"] == "memory used: cpu";
  EXPECT_TRUE(memory_counter);
  EXPECT_TRUE(lane_named);
  EXPECT_EQ(fetches, 16);
  EXPECT_GT(evictions, 0);
}

}  // namespace
}  // namespace strata::runtime
