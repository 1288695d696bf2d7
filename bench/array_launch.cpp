// Distributed kernel launches (issue 16; the lightning paper, §3 and §4.6), two measurements:
//
// --measure launch: the launch overhead of Arrays::launch against the same kernel launched
// directly on the device layer, in the same run. One rank, one device (--backend), one array of
// ELEMENTS floats in one chunk on it (it fits), one superblock per launch. The kernel ("spin")
// updates every element in place with ITERATIONS dependent multiply-adds, ITERATIONS calibrated
// at start so that one direct launch takes about --target-ms. A repetition is LAUNCHES launches
// in a row, then a wait (Arrays::synchronize(); Queue::finish() for the direct launches) —
// consecutive launches depend on each other through the array, as iterations of a solver do.
// The direct launches go to the device's compute queue with the program compiled with the same
// options the node compiles the superblock with (block offset 0, the chunk's placement). The two
// alternate (ABBA) over --repetitions repetitions after an untimed warm-up of each. On the CPU
// device each block of the kernel records when it ran, so the device's idle time between
// kernels is known for both.
//
// --measure planning: the time spent inside Arrays::launch (planning the superblocks and handing
// the plans to the ranks) per superblock, separately from the execution (from the return of
// launch() to that of synchronize()), for a grid of GRID_BLOCKS blocks of 64 threads grouped by
// WorkDistribution::tiled into 1, 100, ..., superblocks (--superblocks), on an array of one
// element per thread updated by a trivial kernel, distributed as one chunk per device ("chunk per
// device") and as one chunk per superblock ("chunk per superblock"). Run it under mpirun for
// several ranks.
//
// Prints one JSON object on rank 0.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench_json.hpp"
#include "strata/array/arrays.hpp"
#include "strata/device/settings.hpp"
#include "strata/runtime/task_observer.hpp"

namespace {

using strata::bench::json_list;
using strata::bench::json_string;
using strata::bench::median_of;

using Clock = std::chrono::steady_clock;
using strata::array::Argument;
using strata::array::Array;
using strata::array::ArrayKernel;
using strata::array::Arrays;
using strata::array::Distribution;
using strata::array::Grid;
using strata::array::WorkDistribution;
using strata::device::CpuBlock;
using strata::device::KernelDefinition;
using strata::device::KernelStyle;
using strata::device::ParamAccess;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// When the CPU kernel's blocks ran (steady clock, ns): each block appends its interval.
struct BlockLog {
  std::atomic<bool> on{false};
  std::atomic<std::size_t> next{0};
  std::vector<std::pair<std::int64_t, std::int64_t>> intervals =
      std::vector<std::pair<std::int64_t, std::int64_t>>(1u << 20);

  void start() {
    next.store(0);
    on.store(true);
  }
  // Stops logging; the intervals logged, by start.
  std::vector<std::pair<std::int64_t, std::int64_t>> stop() {
    on.store(false);
    const std::size_t count = std::min(next.load(), intervals.size());
    std::vector<std::pair<std::int64_t, std::int64_t>> sorted(intervals.begin(),
                                                              intervals.begin() + count);
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }
};

// Seconds between `begin` and `end` in which none of `sorted` ran.
double idle_seconds(const std::vector<std::pair<std::int64_t, std::int64_t>>& sorted,
                    Clock::time_point begin, Clock::time_point end) {
  std::int64_t covered = begin.time_since_epoch().count();
  std::int64_t idle = 0;
  for (const auto& [from, to] : sorted) {
    if (from > covered) idle += from - covered;
    covered = std::max(covered, to);
  }
  idle += std::max<std::int64_t>(0, end.time_since_epoch().count() - covered);
  return static_cast<double>(idle) * 1e-9;
}

// Per kernel of a serialized sequence: when its first block started and its last block ended
// (`blocks` blocks per kernel); empty when the log does not hold whole kernels.
std::vector<std::pair<std::int64_t, std::int64_t>> kernel_spans(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& sorted, std::size_t blocks) {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  if (blocks == 0 || sorted.size() % blocks != 0) return spans;
  for (std::size_t i = 0; i < sorted.size(); i += blocks) {
    std::int64_t last = sorted[i].second;
    for (std::size_t j = i; j < i + blocks; ++j)
      last = std::max(last, sorted[j].second);
    spans.emplace_back(sorted[i].first, last);
  }
  return spans;
}

std::int64_t now_ns() {
  return Clock::now().time_since_epoch().count();
}

// When the runtime's kernel tasks of the distributed launches started their bodies and finished
// (steady clock, ns): the steps between one kernel's end and the next one's start.
class KernelTaskLog final : public strata::runtime::TaskObserver {
 public:
  explicit KernelTaskLog(std::string name) : name_(std::move(name)) {}
  void start() {
    std::lock_guard guard(lock_);
    starts_.clear();
    finishes_.clear();
    on_ = true;
  }
  std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> stop() {
    std::lock_guard guard(lock_);
    on_ = false;
    std::sort(starts_.begin(), starts_.end());
    std::sort(finishes_.begin(), finishes_.end());
    return {starts_, finishes_};
  }
  void on_run(const strata::runtime::TaskRun& run) override {
    if (run.name != name_) return;
    const std::int64_t now = now_ns();  // about run.end_ns on the runtime's clock
    std::lock_guard guard(lock_);
    if (on_) starts_.push_back(now - (run.end_ns - run.start_ns));
  }
  void on_finish(std::string_view name, std::uint64_t, strata::runtime::TaskStatus) override {
    if (name != name_) return;
    const std::int64_t now = now_ns();
    std::lock_guard guard(lock_);
    if (on_) finishes_.push_back(now);
  }

 private:
  std::string name_;
  std::mutex lock_;
  bool on_ = false;
  std::vector<std::int64_t> starts_, finishes_;
};

BlockLog block_log;

const char* spin_opencl = R"(
void spin(uint3 virtBlockIdx, int n, int iterations, __global float* data) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i >= n) return;
  float x = data[i];
  for (int k = 0; k < iterations; ++k) x = x * 0.999f + 0.001f;
  data[i] = x;
})";

const char* spin_cuda = R"(
__device__ void spin(dim3 virtBlockIdx, int n, int iterations, strata::Vector<float> data) {
  const int i = virtBlockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = data(i);
  for (int k = 0; k < iterations; ++k) x = x * 0.999f + 0.001f;
  data(i) = x;
})";

// About `iterations` dependent multiply-adds per element: compute-bound, the data stays put.
ArrayKernel spin_kernel() {
  KernelDefinition definition("spin");
  definition.scalar<int>("n")
      .scalar<int>("iterations")
      .array<float>("data", ParamAccess::read_write)
      .cpu([](const CpuBlock& block) {
        const std::int64_t begin = now_ns();
        const auto n = static_cast<std::uint64_t>(block.scalar<int>(0));
        const int iterations = block.scalar<int>(1);
        const auto data = block.global_array<float>(2);
        for (std::uint64_t i = block.begin.x; i < block.end.x && i < n; ++i) {
          float x = data(i);
          for (int k = 0; k < iterations; ++k)
            x = x * 0.999f + 0.001f;
          data(i) = x;
        }
        if (block_log.on.load(std::memory_order_relaxed)) {
          const std::size_t slot = block_log.next.fetch_add(1, std::memory_order_relaxed);
          if (slot < block_log.intervals.size()) block_log.intervals[slot] = {begin, now_ns()};
        }
      })
      .opencl(spin_opencl, KernelStyle::virtual_blocks)
      .cuda(spin_cuda, KernelStyle::virtual_blocks);
  return ArrayKernel(definition, "global i => readwrite data[i]");
}

// A trivial kernel for the planning measurement.
ArrayKernel touch_kernel() {
  KernelDefinition definition("touch");
  definition.scalar<int>("n")
      .array<float>("data", ParamAccess::read_write)
      .cpu([](const CpuBlock& block) {
        const auto data = block.global_array<float>(1);
        data(block.begin.x) += 1.0f;
      })
      .opencl(R"(
void touch(uint3 virtBlockIdx, int n, __global float* data) {
  const int i = virtBlockIdx.x * get_local_size(0) + get_local_id(0);
  if (i < n && get_local_id(0) == 0) data[i] += 1.0f;
})",
              KernelStyle::virtual_blocks);
  return ArrayKernel(definition, "global i => readwrite data[i]");
}

struct Options {
  std::string measure = "launch";
  std::string backend = "cpu";
  int repetitions = 7;
  int launches = 200;
  double target_ms = 1.0;
  std::uint64_t elements = 16384;
  std::uint64_t block = 256;
  std::uint64_t grid_blocks = 10000;
  std::vector<std::uint64_t> superblocks{1, 100, 10000};
  std::string only;  // launch: "direct" or "distributed" runs only that one (for profiling)
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--measure") options.measure = value;
    if (flag == "--backend") options.backend = value;
    if (flag == "--repetitions") options.repetitions = std::atoi(value.c_str());
    if (flag == "--launches") options.launches = std::atoi(value.c_str());
    if (flag == "--target-ms") options.target_ms = std::atof(value.c_str());
    if (flag == "--elements") options.elements = std::strtoull(value.c_str(), nullptr, 10);
    if (flag == "--grid-blocks") options.grid_blocks = std::strtoull(value.c_str(), nullptr, 10);
    if (flag == "--only") options.only = value;
    if (flag == "--superblocks") {
      options.superblocks.clear();
      std::stringstream list(value);
      std::string item;
      while (std::getline(list, item, ','))
        options.superblocks.push_back(std::strtoull(item.c_str(), nullptr, 10));
    }
  }
  return options;
}

// Measurement 1. Appends the JSON fields to `out`.
void measure_launch(strata::node::Node& node, strata::cluster::Driver& driver,
                    const ArrayKernel& kernel, const Options& options, std::string& out) {
  strata::device::Device& device = *node.devices().front();
  const bool cpu = device.info().backend == strata::device::BackendKind::cpu;
  const std::uint64_t n = options.elements;
  const int count = static_cast<int>(n);
  const std::uint64_t blocks = (n + options.block - 1) / options.block;
  Arrays arrays(node, driver);
  Array data = arrays.create("data", strata::device::ElementType::f32, {n},
                             Distribution::row_blocks(n));  // one chunk, on device 0 of rank 0
  arrays.fill<float>(data, 0.5f);
  const Grid grid{{n}, {options.block}};
  const WorkDistribution work = WorkDistribution::tiled({blocks});  // one superblock

  // The direct launches: the same definition compiled as the node compiles the superblock.
  strata::device::CompileOptions compile;
  compile.placements.push_back(
      strata::device::ArrayPlacement{strata::device::Dim3{0, 0, 0}, strata::device::Dim3{n, 1, 1}});
  const auto compiled = device.compile(kernel.definition(), compile);
  strata::device::DeviceBuffer buffer = device.allocate(n * sizeof(float));
  const std::vector<float> initial(n, 0.5f);
  strata::device::Queue& queue = device.queue(strata::device::QueueKind::compute);
  queue.copy_to_device(buffer, 0, initial.data(), n * sizeof(float)).wait();
  const strata::device::LaunchGeometry geometry{strata::device::Dim3{n, 1, 1},
                                                strata::device::Dim3{options.block, 1, 1}, 1};

  // Calibration: ITERATIONS for about target_ms per direct launch.
  int iterations = 64;
  const auto direct_args = [&] {
    return strata::device::KernelArgs{strata::device::KernelArg::value(count),
                                      strata::device::KernelArg::value(iterations),
                                      strata::device::KernelArg::array<float>(buffer)};
  };
  for (int round = 0; round < 3; ++round) {
    const auto args = direct_args();
    queue.launch(*compiled, geometry, args);
    queue.finish();
    // The fastest of 5 tries of 10 launches: other processes only slow a try down.
    double ms = 1e30;
    for (int attempt = 0; attempt < 5; ++attempt) {
      const int calibration = 10;
      const auto start = Clock::now();
      for (int i = 0; i < calibration; ++i)
        queue.launch(*compiled, geometry, args);
      queue.finish();
      ms = std::min(ms, seconds_since(start) / calibration * 1e3);
    }
    iterations = std::max(1, static_cast<int>(iterations * options.target_ms / ms + 0.5));
  }
  // The calibration's launches undone: both sides then launch as often, and must agree.
  queue.copy_to_device(buffer, 0, initial.data(), n * sizeof(float)).wait();

  const auto args = direct_args();
  const std::vector<Argument> distributed_args{Argument::value(count), Argument::value(iterations),
                                               data};
  std::map<std::string, std::vector<double>> results;
  auto tasks = std::make_shared<KernelTaskLog>("kernel " + kernel.name());
  if (cpu) node.runtime().add_observer(tasks);
  const auto run_direct = [&](bool timed) {
    if (cpu) block_log.start();
    const auto start = Clock::now();
    for (int i = 0; i < options.launches; ++i)
      queue.launch(*compiled, geometry, args);
    queue.finish();
    const auto end = Clock::now();
    if (!cpu) {
      if (timed) {
        results["direct_us_per_launch"].push_back(
            std::chrono::duration<double>(end - start).count() * 1e6 / options.launches);
      }
      return;
    }
    const auto blocks_ran = block_log.stop();
    if (!timed) return;
    const double per_launch = 1e6 / options.launches;
    results["direct_us_per_launch"].push_back(std::chrono::duration<double>(end - start).count() *
                                              per_launch);
    results["direct_idle_us_per_launch"].push_back(idle_seconds(blocks_ran, start, end) *
                                                   per_launch);
    const auto spans = kernel_spans(blocks_ran, blocks);
    std::vector<double> gaps;
    for (std::size_t k = 1; k < spans.size(); ++k)
      gaps.push_back(static_cast<double>(spans[k].first - spans[k - 1].second) * 1e-3);
    results["direct_gap_us"].push_back(median_of(gaps));
  };
  const auto run_distributed = [&](bool timed) {
    if (cpu) {
      block_log.start();
      tasks->start();
    }
    double in_launch = 0;
    const auto start = Clock::now();
    for (int i = 0; i < options.launches; ++i) {
      const auto call = Clock::now();
      arrays.launch(kernel, grid, work, distributed_args);
      in_launch += seconds_since(call);
    }
    const auto planned = Clock::now();
    arrays.synchronize();
    const auto end = Clock::now();
    const auto blocks_ran = cpu ? block_log.stop() : decltype(block_log.stop()){};
    const auto [task_starts, task_finishes] = cpu ? tasks->stop() : decltype(tasks->stop()){};
    if (!timed) return;
    const double per_launch = 1e6 / options.launches;
    results["distributed_us_per_launch"].push_back(
        std::chrono::duration<double>(end - start).count() * per_launch);
    results["distributed_in_launch_us_per_launch"].push_back(in_launch * per_launch);
    results["distributed_synchronize_us"].push_back(
        std::chrono::duration<double>(end - planned).count() * 1e6);
    if (!cpu) return;
    results["distributed_idle_us_per_launch"].push_back(idle_seconds(blocks_ran, start, end) *
                                                        per_launch);
    // Between kernel k-1's last block and kernel k's first. Task k's body queues kernel k; in
    // queue order it may start once task k-1's body returned, before kernel k-1 ended (a body that
    // only queues) or after it (the CPU device runs a kernel queued on its idle queue inside the
    // body). Given beside the gap: how far ahead of kernel k-1's end task k's body started
    // (negative: after it), and when the runtime saw task k-1 finish.
    const auto spans = kernel_spans(blocks_ran, blocks);
    if (spans.size() != task_starts.size() || spans.size() != task_finishes.size()) return;
    std::vector<double> gaps, to_finish, task_ahead;
    for (std::size_t k = 1; k < spans.size(); ++k) {
      gaps.push_back(static_cast<double>(spans[k].first - spans[k - 1].second) * 1e-3);
      to_finish.push_back(static_cast<double>(task_finishes[k - 1] - spans[k - 1].second) * 1e-3);
      task_ahead.push_back(static_cast<double>(spans[k - 1].second - task_starts[k]) * 1e-3);
    }
    results["distributed_gap_us"].push_back(median_of(gaps));
    results["distributed_gap_kernel_end_to_task_finish_us"].push_back(median_of(to_finish));
    results["distributed_next_task_ahead_us"].push_back(median_of(task_ahead));
  };
  const bool direct = options.only != "distributed";
  const bool distributed = options.only != "direct";
  if (direct) run_direct(false);
  if (distributed) run_distributed(false);
  for (int rep = 0; rep < options.repetitions; ++rep) {
    if (rep % 2 == 0) {
      if (direct) run_direct(true);
      if (distributed) run_distributed(true);
    } else {
      if (distributed) run_distributed(true);
      if (direct) run_direct(true);
    }
    if (direct && distributed) {
      const double a = results["direct_us_per_launch"].back();
      const double b = results["distributed_us_per_launch"].back();
      results["overhead_percent"].push_back((b - a) / a * 100.0);
    }
  }
  // Both computed the same values: spot-check that the arrays agree with the direct buffer's.
  std::vector<float> direct_values(n);
  queue.copy_to_host(direct_values.data(), buffer, 0, n * sizeof(float)).wait();
  const std::vector<float> distributed_values = arrays.read_as<float>(data);
  const bool agree = !direct || !distributed ||
                     (direct_values.front() == distributed_values.front() &&
                      direct_values.back() == distributed_values.back());
  const auto stats = arrays.stats();
  arrays.destroy(data);
  if (cpu) node.runtime().remove_observer(tasks.get());

  char setup[512];
  std::snprintf(
      setup, sizeof setup,
      ", \"device\": %s, \"launches\": %d, \"elements\": %llu, \"block\": %llu, "
      "\"iterations\": %d, \"target_ms\": %g, \"superblocks_per_launch\": %llu, "
      "\"direct_uses\": %llu, \"results_agree\": %s",
      json_string(device.info().name).c_str(), options.launches, static_cast<unsigned long long>(n),
      static_cast<unsigned long long>(options.block), iterations, options.target_ms,
      static_cast<unsigned long long>(stats.launches ? stats.superblocks / stats.launches : 0),
      static_cast<unsigned long long>(stats.direct_uses), agree ? "true" : "false");
  out += setup;
  for (const auto& [name, values] : results)
    out += ", " + json_string(name) + ": " + json_list(values);
}

// Measurement 2. Appends the JSON field "points" to `out`.
void measure_planning(strata::node::Node& node, strata::cluster::Driver& driver,
                      const ArrayKernel& kernel, const Options& options, std::string& out) {
  constexpr std::uint64_t block = 64;
  const std::uint64_t grid_blocks = options.grid_blocks;
  const std::uint64_t n = grid_blocks * block;
  const int count = static_cast<int>(n);
  Arrays arrays(node, driver);
  const std::uint64_t places =
      static_cast<std::uint64_t>(driver.size()) * static_cast<std::uint64_t>(node.devices().size());
  std::string points;
  for (const std::string layout : {"chunk per device", "chunk per superblock"}) {
    for (const std::uint64_t superblocks : options.superblocks) {
      const std::uint64_t tile = (grid_blocks + superblocks - 1) / superblocks;
      const std::uint64_t rows =
          layout == std::string("chunk per device") ? (n + places - 1) / places : tile * block;
      Array data = arrays.create("data", strata::device::ElementType::f32, {n},
                                 Distribution::row_blocks(rows));
      const Grid grid{{n}, {block}};
      const WorkDistribution work = WorkDistribution::tiled({tile});
      const std::vector<Argument> args{Argument::value(count), data};
      const auto before = arrays.stats();
      arrays.launch(kernel, grid, work, args);  // warm-up: every superblock's program compiled
      arrays.synchronize();
      const auto after = arrays.stats();
      const std::uint64_t planned = after.superblocks - before.superblocks;
      // Each launch planned alone, then executed: planning does not compete with execution.
      // Small launches repeat within a repetition so that each figure sums 1,000 superblocks.
      const std::uint64_t launches = std::max<std::uint64_t>(1, 1000 / planned);
      std::vector<double> plan_us, execute_ms;
      for (int rep = 0; rep < options.repetitions; ++rep) {
        double planning = 0;
        double executing = 0;
        for (std::uint64_t l = 0; l < launches; ++l) {
          const auto start = Clock::now();
          arrays.launch(kernel, grid, work, args);
          const auto returned = Clock::now();
          arrays.synchronize();
          planning += std::chrono::duration<double>(returned - start).count();
          executing += seconds_since(returned);
        }
        plan_us.push_back(planning / static_cast<double>(planned * launches) * 1e6);
        execute_ms.push_back(executing / static_cast<double>(launches) * 1e3);
      }
      const auto end = arrays.stats();
      const std::size_t chunks = data.chunks().size();
      arrays.destroy(data);
      char head[256];
      std::snprintf(head, sizeof head,
                    "{\"layout\": %s, \"superblocks\": %llu, \"chunks\": %zu, "
                    "\"launches_per_repetition\": %llu, \"box_copies_per_launch\": %llu",
                    json_string(layout).c_str(), static_cast<unsigned long long>(planned), chunks,
                    static_cast<unsigned long long>(launches),
                    static_cast<unsigned long long>(
                        (end.box_copies - after.box_copies) /
                        (static_cast<std::uint64_t>(options.repetitions) * launches)));
      points += std::string(points.empty() ? "" : ", ") + head +
                ", \"plan_us_per_superblock\": " + json_list(plan_us) +
                ", \"execute_ms\": " + json_list(execute_ms) + "}";
      std::fprintf(stderr, "planning: %s, %llu superblocks done\n", layout.c_str(),
                   static_cast<unsigned long long>(planned));
    }
  }
  char setup[128];
  std::snprintf(setup, sizeof setup, ", \"grid_blocks\": %llu, \"block\": %llu, \"places\": %llu",
                static_cast<unsigned long long>(grid_blocks),
                static_cast<unsigned long long>(block), static_cast<unsigned long long>(places));
  out += std::string(setup) + ", \"points\": [" + points + "]";
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  strata::node::NodeOptions node_options;
  node_options.config.section<strata::device::DeviceSettings>().backends = options.backend;
  strata::node::Node node(argc, argv, node_options);
  const std::vector<ArrayKernel> kernels{spin_kernel(), touch_kernel()};
  Arrays::prepare(node, kernels);
  std::string out;
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    out = "{\"measure\": " + json_string(options.measure) +
          ", \"backend\": " + json_string(options.backend) +
          ", \"ranks\": " + std::to_string(driver.size()) +
          ", \"repetitions\": " + std::to_string(options.repetitions);
    if (node.devices().empty()) {
      // The launch count says which table of the report the skipped run belongs to.
      if (options.measure == "launch") out += ", \"launches\": " + std::to_string(options.launches);
      out += ", \"skipped\": " + json_string("no " + options.backend + " device found") + "}";
      return;
    }
    if (options.measure == "launch") {
      measure_launch(node, driver, kernels[0], options, out);
    } else {
      measure_planning(node, driver, kernels[1], options, out);
    }
    out += "}";
  });
  if (status != 0 || node.rank() != 0) return status;
  std::printf("%s\n", out.c_str());
  return 0;
}
