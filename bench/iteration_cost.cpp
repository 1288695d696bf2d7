// The fixed cost of one iteration of a host loop that plans a round and reads a small result
// each round (dandelion's DoWhile, k-means shape), measured against its peers in the same run
// (run plainly, and with 4 ranks: mpirun -n 4 bench_iteration_cost):
//
// Round: the driver writes the 8-byte "centers" (home rank 0), every rank runs a kernel on its
// own resident chunk that reads the centers and writes an 8-byte partial, a `+` reduction over
// the ranks' partials, and the driver fetches the 8-byte sum and decides whether to go on (the
// loop runs ITERATIONS rounds; the kernel's work is nil, so the time is the platform's). The
// phases are timed apart in separate loops: a plan and wait_all() alone; a fetch alone.
//
// Peers: on one rank, a plain runtime task submitted and waited for each round (the runtime's own
// round trip); on several, MPI_Bcast of 8 bytes from rank 0 and MPI_Reduce of 8 bytes to it per
// round, before the Strata phase starts (this program initializes MPI, so the Strata network
// thread is not running then). `--cpu-device-memory own` gives the CPU device a memory space of
// its own (copies to and from the host), `host` (the default) has it work in host memory.
// Prints one JSON object on rank 0.

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_json.hpp"
#include "strata/node/node.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using strata::bench::json_list;
using strata::runtime::Access;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// partial[0] = centers[0] + data[0]: the k-means step's shape with nothing to compute.
strata::device::KernelDefinition step_kernel() {
  return strata::device::KernelDefinition("step")
      .array<double>("centers", strata::device::ParamAccess::read)
      .array<double>("data", strata::device::ParamAccess::read)
      .array<double>("partial", strata::device::ParamAccess::write)
      .cpu([](const strata::device::CpuBlock& block) {
        block.array<double>(2)[0] = block.array<double>(0)[0] + block.array<double>(1)[0];
      });
}

strata::node::KernelLaunch step_launch() {
  strata::node::KernelLaunch launch;
  launch.kernel = "step";
  launch.device = 0;
  launch.global = {1, 1, 1};
  launch.args = {strata::node::PlannedArg::array(0, strata::device::ElementType::f64),
                 strata::node::PlannedArg::array(1, strata::device::ElementType::f64),
                 strata::node::PlannedArg::array(2, strata::device::ElementType::f64)};
  return launch;
}

std::span<const std::byte> bytes_of(const double& value) {
  return std::as_bytes(std::span(&value, 1));
}

double value_of(const std::vector<std::byte>& bytes) {
  double value = 0;
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
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
  int iterations = 2000;
  std::string cpu_device_memory = "host";
  std::string trace;  // a Chrome trace of every task (the setting `trace`), for where time goes
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--repetitions") repetitions = std::atoi(argv[i + 1]);
    if (flag == "--iterations") iterations = std::atoi(argv[i + 1]);
    if (flag == "--cpu-device-memory") cpu_device_memory = argv[i + 1];
    if (flag == "--trace") trace = argv[i + 1];
  }
  std::map<std::string, std::vector<double>> results;
  if (size > 1) {
    for (int r = 0; r < repetitions; ++r) {
      double centers = 1, partial = 1, sum = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      const auto start = Clock::now();
      for (int i = 0; i < iterations; ++i) {
        MPI_Bcast(&centers, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Reduce(&partial, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      }
      results["mpi_us"].push_back(seconds_since(start) / iterations * 1e6);
    }
  }
  {
    strata::node::NodeOptions options;
    options.config.section<strata::device::DeviceSettings>().backends = "cpu";
    options.config.set("cpu_device_memory", cpu_device_memory);
    if (!trace.empty()) options.config.set("trace", trace);
    strata::node::Node node(argc, argv, options);
    node.define_kernel(step_kernel());
    strata::cluster::Program& program = node.program();
    const int status = program.run([&](strata::cluster::Driver& driver) {
      if (size == 1) {
        strata::runtime::Runtime& runtime = node.runtime();
        for (int r = 0; r < repetitions; ++r) {
          const auto start = Clock::now();
          for (int i = 0; i < iterations; ++i)
            runtime.submit(strata::runtime::TaskSpec("round"), [](strata::runtime::TaskContext&) {})
                .wait();
          results["plain_task_us"].push_back(seconds_since(start) / iterations * 1e6);
        }
      }
      const auto centers = driver.create_chunk("centers", 8, 0);
      const auto sum = driver.create_chunk("sum", 8, 0);
      std::vector<strata::cluster::ChunkRef> data, partials;
      for (int r = 0; r < size; ++r) {
        data.push_back(driver.create_chunk("data " + std::to_string(r), 8, r));
        partials.push_back(driver.create_chunk("partial " + std::to_string(r), 8, r));
        driver.write(data.back(), bytes_of(static_cast<double>(r)));
      }
      double center = 0;
      auto plan_round = [&] {
        const strata::cluster::PlanBatch batch(driver);
        driver.write(centers, bytes_of(center));
        for (int r = 0; r < size; ++r)
          node.plan_kernel(driver, r, step_launch(),
                           {{centers, Access::read},
                            {data[static_cast<std::size_t>(r)], Access::read},
                            {partials[static_cast<std::size_t>(r)], Access::write}});
        driver.reduce(partials, sum, strata::memory::ReduceOp::sum,
                      strata::device::ElementType::f64);
      };
      for (int r = -1; r < repetitions; ++r) {
        // The whole round.
        auto start = Clock::now();
        for (int i = 0; i < iterations; ++i) {
          plan_round();
          const double total = value_of(driver.fetch(sum));
          const double expected = size * center + size * (size - 1) / 2.0;
          if (total != expected) throw std::runtime_error("the round's sum is wrong");
          center = total > 1e9 ? 0 : center + 1;  // the loop's condition reads the result
        }
        if (r >= 0) results["round_us"].push_back(seconds_since(start) / iterations * 1e6);
        // Planning and waiting, without reading the result; planning alone timed inside.
        start = Clock::now();
        double planning = 0;
        for (int i = 0; i < iterations; ++i) {
          const auto planned = Clock::now();
          plan_round();
          planning += seconds_since(planned);
          driver.wait_all();
        }
        if (r >= 0) {
          results["plan_wait_us"].push_back(seconds_since(start) / iterations * 1e6);
          results["plan_only_us"].push_back(planning / iterations * 1e6);
        }
        // A fetch of the 8-byte result alone (its copy on the driver is then a valid replica,
        // so each fetch follows a write that invalidates it).
        start = Clock::now();
        for (int i = 0; i < iterations; ++i) {
          driver.write(sum, bytes_of(center));
          driver.fetch(sum);
        }
        if (r >= 0) results["write_fetch_us"].push_back(seconds_since(start) / iterations * 1e6);
      }
    });
    if (status != 0) {
      MPI_Finalize();
      return status;
    }
    if (rank == 0) {
      std::printf(
          "{\"ranks\": %d, \"repetitions\": %d, \"iterations\": %d, "
          "\"cpu_device_memory\": \"%s\"",
          size, repetitions, iterations, cpu_device_memory.c_str());
      for (const auto& [name, values] : results)
        std::printf(",\n \"%s\": %s", name.c_str(), json_list(values).c_str());
      std::printf("}\n");
    }
  }
  MPI_Finalize();
  return 0;
}
