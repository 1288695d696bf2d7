// The platform's plans, measured against their peers in the same run (run with 4 ranks:
// mpirun -n 4 bench_plan_platform):
//
// Reduction: a `+` reduction of one chunk of MIB MiB of doubles per rank (Driver::reduce: each
// rank's partial, then a binary tree over the ranks) against MPI_Reduce of the same bytes to rank
// 0, on the main thread before and after the Strata phase (this program initializes MPI, so the
// Strata network thread is not running then). Throughput = bytes of one partial / seconds.
//
// Planning: OPS operations over all ranks — kernel launches (an empty CPU kernel on a 4 KiB chunk)
// with a box copy between two chunks of the rank every tenth — planned in one batch on the driver
// (µs per planned operation), then executed (seconds from the end of planning to wait_all(), per
// operation of a rank), against the same work done by plain runtime tasks on every rank at once
// (the kernel launched on the same device, the box copied on the CPU pool; the slowest rank).
// Prints one JSON object on rank 0.

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_json.hpp"
#include "strata/node/node.hpp"

namespace {

using strata::bench::json_list;

using Clock = std::chrono::steady_clock;
using strata::runtime::Access;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds of an MPI_Reduce of `count` doubles to rank 0, as rank 0 sees it after a barrier.
double raw_reduce(std::vector<double>& send, std::vector<double>& receive) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = Clock::now();
  MPI_Reduce(send.data(), receive.data(), static_cast<int>(send.size()), MPI_DOUBLE, MPI_SUM, 0,
             MPI_COMM_WORLD);
  return seconds_since(start);
}

strata::device::KernelDefinition touch_kernel() {
  return strata::device::KernelDefinition("touch")
      .scalar<std::uint32_t>("n")
      .array<std::uint32_t>("data", strata::device::ParamAccess::read_write)
      .cpu([](const strata::device::CpuBlock&) {});
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int repetitions = 5;
  std::uint64_t reduce_mib = 64;
  std::uint64_t ops = 10000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--repetitions") repetitions = std::atoi(argv[i + 1]);
    if (flag == "--reduce-mib") reduce_mib = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--ops") ops = std::strtoull(argv[i + 1], nullptr, 10);
  }
  const std::uint64_t reduce_bytes = reduce_mib << 20;
  const std::size_t count = reduce_bytes / sizeof(double);
  std::map<std::string, std::vector<double>> results;
  {
    std::vector<double> send(count, 1.0 + rank), receive(count);
    for (int r = 0; r < (repetitions + 1) / 2; ++r)
      results["mpi_reduce_seconds"].push_back(raw_reduce(send, receive));
  }
  {
    strata::node::NodeOptions options;
    options.config.section<strata::device::DeviceSettings>().backends = "cpu";
    options.config.section<strata::memory::MemorySettings>().host_capacity =
        8 * reduce_bytes + (256ull << 20);
    strata::node::Node node(argc, argv, options);
    node.define_kernel(touch_kernel());
    strata::cluster::Program& program = node.program();
    program.define("fill", [](strata::cluster::OperationContext& context) {
      const auto value = context.args<double>();
      for (double& x : context.chunk_as<double>(0))
        x = value;
    });
    // The planned work's equal as plain runtime tasks on this rank's node: the empty kernel
    // launched on the same device on a chunk it stages there, and every tenth a box copy; writes
    // the µs per task into its chunk.
    program.define("plain_burst", [&node](strata::cluster::OperationContext& context) {
      const auto tasks = context.args<std::uint64_t>();
      constexpr std::uint32_t words = 1024;
      constexpr int chunks = 8;
      const std::uint64_t shape[1] = {words}, offset[1] = {0}, extent[1] = {64};
      const auto box = strata::memory::Box::of(shape, offset, extent);
      std::vector<strata::runtime::ChunkData> data;
      const std::vector<std::byte> zeros(words * 4);
      for (int c = 0; c < chunks; ++c)
        data.push_back(node.create_data("plain", words * 4, zeros));
      strata::runtime::Runtime& runtime = node.runtime();
      strata::device::Device& device = *node.devices().front();
      const auto touch = device.compile(touch_kernel());
      std::vector<strata::runtime::TaskHandle> handles;
      const auto start = Clock::now();
      for (std::uint64_t i = 0; i < tasks; ++i) {
        const auto& mine = data[i % chunks];
        if (i % 10 == 9) {
          const auto& next = data[(i + 1) % chunks];
          handles.push_back(runtime.submit(
              strata::runtime::TaskSpec("plain box").reads(mine.data).updates(next.data),
              [&node, box, mine, next](strata::runtime::TaskContext& task) {
                const auto from = node.staging().view(task, mine.data);
                const auto to = node.staging().view(task, next.data);
                strata::memory::copy_box({static_cast<const std::byte*>(from.host), from.bytes},
                                         box, {static_cast<std::byte*>(to.host), to.bytes}, box, 4);
              }));
          continue;
        }
        handles.push_back(runtime.submit(
            strata::runtime::TaskSpec("plain kernel")
                .on(node.executors(0).compute)
                .updates(mine.data),
            [&node, &device, touch, mine](strata::runtime::TaskContext& task) {
              const auto view = node.staging().view(task, mine.data);
              strata::runtime::complete_when(
                  task, device.queue(strata::device::QueueKind::compute)
                            .launch(*touch, strata::device::LaunchGeometry{{1, 1, 1}},
                                    {strata::device::KernelArg::value(words),
                                     view.argument(strata::device::ElementType::u32)}));
            }));
      }
      runtime.when_all(handles).wait();
      const double us = seconds_since(start) / static_cast<double>(tasks) * 1e6;
      for (const auto& d : data)
        node.destroy_data(d);
      std::memcpy(context.chunk(0).data(), &us, sizeof us);
    });
    const int status = program.run([&](strata::cluster::Driver& driver) {
      // Reduction.
      std::vector<strata::cluster::ChunkRef> partials;
      for (int r = 0; r < size; ++r) {
        partials.push_back(driver.create_chunk("partial " + std::to_string(r), reduce_bytes, r));
        driver.run_with(r, "fill", {{partials.back(), Access::write}}, 1.0 + r);
      }
      driver.wait_all();
      const double expected = size + size * (size - 1) / 2.0;
      for (int rep = 0; rep < repetitions; ++rep) {
        const auto result = driver.create_chunk("sum", reduce_bytes, 0);
        const auto start = Clock::now();
        driver.reduce(partials, result, strata::memory::ReduceOp::sum,
                      strata::device::ElementType::f64);
        driver.wait_all();
        results["strata_reduce_seconds"].push_back(seconds_since(start));
        if (rep == 0) {
          const std::vector<std::byte> bytes = driver.fetch(result);
          const auto* sums = reinterpret_cast<const double*>(bytes.data());
          if (sums[0] != expected || sums[count - 1] != expected) {
            throw std::runtime_error("the reduction is wrong");
          }
        }
        driver.destroy(result);
      }
      for (const auto& partial : partials)
        driver.destroy(partial);
      driver.wait_all();

      // Planning and executing OPS kernel launches and box copies.
      constexpr std::uint32_t words = 1024;  // 4 KiB chunks
      constexpr int chunks_per_rank = 8;
      std::vector<std::vector<strata::cluster::ChunkRef>> chunks(static_cast<std::size_t>(size));
      for (int r = 0; r < size; ++r) {
        for (int c = 0; c < chunks_per_rank; ++c) {
          chunks[r].push_back(driver.create_chunk("c", words * 4, r));
          driver.run_with(r, "fill", {{chunks[r].back(), Access::write}}, 0.0);
        }
      }
      driver.wait_all();
      const std::uint64_t box_shape[1] = {words};
      const std::uint64_t box_offset[1] = {0};
      const std::uint64_t box_extent[1] = {64};
      const auto box = strata::memory::Box::of(box_shape, box_offset, box_extent);
      for (int rep = 0; rep < repetitions; ++rep) {
        const auto start = Clock::now();
        driver.begin_batch();
        for (std::uint64_t i = 0; i < ops; ++i) {
          const int r = static_cast<int>(i % static_cast<std::uint64_t>(size));
          const auto& mine = chunks[static_cast<std::size_t>(r)];
          const auto c = (i / static_cast<std::uint64_t>(size)) % chunks_per_rank;
          if (i % 10 == 9) {
            driver.copy_box(mine[c], box, mine[(c + 1) % chunks_per_rank], box, 4);
            continue;
          }
          strata::node::KernelLaunch launch;
          launch.kernel = "touch";
          launch.global = {1, 1, 1};
          launch.args = {strata::node::PlannedArg::value(words),
                         strata::node::PlannedArg::array(0, strata::device::ElementType::u32)};
          node.plan_kernel(driver, r, launch, {{mine[c], Access::read_write}});
        }
        const double planning = seconds_since(start);
        driver.end_batch();
        const auto executing = Clock::now();
        driver.wait_all();
        results["plan_us_per_op"].push_back(planning / static_cast<double>(ops) * 1e6);
        results["execute_us_per_op_per_rank"].push_back(seconds_since(executing) /
                                                        (static_cast<double>(ops) / size) * 1e6);

        // The same work as plain runtime tasks, on every rank at once (as the planned work ran).
        std::vector<strata::cluster::ChunkRef> timings;
        for (int r = 0; r < size; ++r) {
          timings.push_back(driver.create_chunk("plain timing", sizeof(double), r));
          driver.run_with(r, "plain_burst", {{timings.back(), Access::write}},
                          ops / static_cast<std::uint64_t>(size));
        }
        double slowest = 0;
        for (const auto& timing : timings) {
          const std::vector<std::byte> bytes = driver.fetch(timing);
          double us = 0;
          std::memcpy(&us, bytes.data(), sizeof us);
          slowest = std::max(slowest, us);
          driver.destroy(timing);
        }
        results["plain_task_us"].push_back(slowest);
      }
    });
    if (status != 0) {
      MPI_Abort(MPI_COMM_WORLD, status);
    }
  }
  {
    std::vector<double> send(count, 1.0 + rank), receive(count);
    for (int r = 0; r < repetitions / 2; ++r)
      results["mpi_reduce_seconds"].push_back(raw_reduce(send, receive));
  }
  if (rank == 0) {
    std::printf("{\"ranks\": %d, \"reduce_bytes\": %llu, \"ops\": %llu", size,
                static_cast<unsigned long long>(reduce_bytes),
                static_cast<unsigned long long>(ops));
    for (const auto& [name, values] : results)
      std::printf(", \"%s\": %s", name.c_str(), json_list(values).c_str());
    std::printf("}\n");
  }
  MPI_Finalize();
  return 0;
}
