// The lightning benchmarks' kernels launched through Arrays::launch against the same kernels
// launched directly on the device layer, in the same run (issue 17: overhead against hand-written
// code, data fitting the device, goal <= 1 %). Per benchmark: every array one chunk on device 0
// of rank 0, one superblock covering the grid; the direct side compiles the same definition with
// the same whole-array placements, uploads the same contents once and launches on the device's
// compute queue. Each repetition launches L times in a row and then waits, direct and distributed
// alternating (ABBA) after an untimed warm-up of each. One JSON line per benchmark on stdout.
// With --kernel-ms T each benchmark is first sized so that one direct launch takes about T ms on
// the device (the base sizes take about a millisecond on one CPU core).
// With --direct-buffers pooled the direct side's arrays lie in one buffer at aligned offsets, as
// the arrays' chunks lie in the memory manager's pool (separate: one buffer each, the default);
// --direct-alignment A aligns those offsets to A bytes instead of the pool's alignment.
// Usage: bench_lightning_overhead [--backend cpu|opencl|cuda] [--repetitions R] [--launches L]
//        [--only NAME,...] [--kernel-ms T] [--direct-buffers separate|pooled]
//        [--direct-alignment A]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <variant>
#include <vector>

#include "bench_json.hpp"
#include "lightning/black_scholes_kernels.hpp"
#include "lightning/gemm_kernels.hpp"
#include "lightning/hotspot_kernels.hpp"
#include "lightning/nbody_kernels.hpp"
#include "lightning/spmv_kernels.hpp"
#include "strata/array/arrays.hpp"
#include "strata/device/settings.hpp"
#include "strata/memory/settings.hpp"

namespace {

using strata::bench::json_list;
using strata::bench::json_string;
using strata::bench::median_of;

using strata::array::Argument;
using strata::array::Array;
using strata::array::ArrayKernel;
using strata::array::Arrays;
using strata::array::Distribution;
using strata::array::Grid;
using strata::array::WorkDistribution;
using strata::device::ElementType;
using Clock = std::chrono::steady_clock;

// An array parameter: its element type, shape and the value every element starts with.
struct ArrayParam {
  ElementType type = ElementType::f32;
  std::vector<std::uint64_t> shape;
  double fill = 0;
};

struct Case {
  std::string name;
  ArrayKernel kernel;
  std::vector<std::variant<Argument, ArrayParam>> params;  // in the kernel's signature order
  std::vector<std::uint64_t> global;
  std::vector<std::uint64_t> block;
};

ArrayParam f32(std::vector<std::uint64_t> shape, double fill) {
  return ArrayParam{ElementType::f32, std::move(shape), fill};
}

// `value` rounded up to a multiple of `step` (at least one step).
std::uint64_t round_up(double value, std::uint64_t step) {
  const auto steps = static_cast<std::uint64_t>(std::ceil(value / static_cast<double>(step)));
  return std::max<std::uint64_t>(steps, 1) * step;
}

// The benchmarks at `work` times the work of the base sizes (a kernel of about a millisecond on
// one CPU core): the side grows with the root that keeps the work proportional (HotSpot and
// N-Body square, GEMM cube), every size a whole number of blocks.
std::vector<Case> cases(double work = 1) {
  namespace lightning = strata::lightning;
  const std::uint64_t options = round_up(65536 * work, 256),
                      cells = round_up(256 * std::sqrt(work), 16),
                      n_gemm = round_up(128 * std::cbrt(work), 16),
                      rows = round_up(16384 * work, 256),
                      bodies = round_up(1024 * std::sqrt(work), 256);
  constexpr std::uint64_t nnz = 16;
  const auto i32 = [](std::uint64_t value) {
    return Argument::value(static_cast<std::int32_t>(value));
  };
  std::vector<Case> all;
  all.push_back(
      {"black_scholes",
       lightning::black_scholes_kernel(),
       {i32(options), f32({options}, 30.0), f32({options}, 35.0), f32({options}, 1.5),
        f32({options}, 0.02), f32({options}, 0.3), f32({options}, 0.0), f32({options}, 0.0)},
       {options},
       {256}});
  all.push_back({"hotspot",
                 lightning::hotspot_kernel(),
                 {i32(cells), i32(cells), Argument::value(0.5f), Argument::value(0.1f),
                  Argument::value(0.1f), Argument::value(0.01f), Argument::value(80.0f),
                  f32({cells, cells}, 0.5), f32({cells, cells}, 320.0), f32({cells, cells}, 0.0)},
                 {cells, cells},
                 {16, 16}});
  all.push_back({"gemm",
                 lightning::gemm_kernel(),
                 {i32(n_gemm), f32({n_gemm, n_gemm}, 0.5), f32({n_gemm, n_gemm}, 0.25),
                  f32({n_gemm, n_gemm}, 0.0)},
                 {n_gemm, n_gemm},
                 {16, 16}});
  all.push_back({"spmv",
                 lightning::spmv_kernel(),
                 {i32(rows), i32(nnz), f32({rows, nnz}, 0.5),
                  ArrayParam{ElementType::i32, {rows, nnz}, 3}, f32({rows}, 1.0), f32({rows}, 0.0)},
                 {rows},
                 {256}});
  all.push_back({"nbody",
                 lightning::nbody_kernel(),
                 {i32(bodies), f32({bodies, 4}, 1.0), f32({bodies, 4}, 0.0), f32({bodies, 4}, 0.0)},
                 {bodies},
                 {256}});
  return all;
}

std::uint64_t elements(const ArrayParam& array) {
  std::uint64_t count = 1;
  for (std::uint64_t extent : array.shape)
    count *= extent;
  return count;
}

std::vector<std::byte> contents(const ArrayParam& array) {
  std::vector<std::byte> bytes(elements(array) * strata::device::size_of(array.type));
  if (array.type == ElementType::i32) {
    const auto value = static_cast<std::int32_t>(array.fill);
    for (std::size_t at = 0; at < bytes.size(); at += sizeof value)
      std::memcpy(bytes.data() + at, &value, sizeof value);
  } else {
    const auto value = static_cast<float>(array.fill);
    for (std::size_t at = 0; at < bytes.size(); at += sizeof value)
      std::memcpy(bytes.data() + at, &value, sizeof value);
  }
  return bytes;
}

strata::device::Dim3 dim3_of(const std::vector<std::uint64_t>& v, std::uint64_t rest) {
  return {v.empty() ? rest : v[0], v.size() > 1 ? v[1] : rest, v.size() > 2 ? v[2] : rest};
}

// A case's kernel launched by hand on the device layer: every array one buffer with its
// contents (or, `pooled`, every array at its own aligned offset in one buffer, as chunks lie in
// the memory manager's pool), the definition compiled with whole-array placements, launched on
// the compute queue.
struct DirectLaunch {
  std::deque<strata::device::DeviceBuffer> buffers;  // stable: `args` point at them
  strata::device::KernelArgs args;
  std::shared_ptr<const strata::device::CompiledKernel> compiled;
  strata::device::LaunchGeometry geometry;
  strata::device::Queue* queue = nullptr;

  DirectLaunch(strata::device::Device& device, const Case& c, bool pooled = false,
               std::uint64_t pool_alignment = 0)
      : queue(&device.queue(strata::device::QueueKind::compute)) {
    const std::uint64_t alignment =
        pool_alignment != 0 ? pool_alignment
                            : std::max<std::uint64_t>(256, device.info().buffer_offset_alignment);
    const auto aligned = [&](std::uint64_t bytes) {
      return (bytes + alignment - 1) / alignment * alignment;
    };
    if (pooled) {
      std::uint64_t pool_bytes = 0;
      for (const auto& param : c.params) {
        if (const auto* array = std::get_if<ArrayParam>(&param))
          pool_bytes += aligned(elements(*array) * strata::device::size_of(array->type));
      }
      buffers.push_back(device.allocate(pool_bytes));
    }
    std::uint64_t offset = 0;
    strata::device::CompileOptions compile;
    for (const auto& param : c.params) {
      if (const auto* scalar = std::get_if<Argument>(&param)) {
        strata::device::KernelArg value;
        value.type = scalar->scalar().type;
        value.scalar_bytes = scalar->scalar().bytes;
        args.values.push_back(value);
        continue;
      }
      const auto& array = std::get<ArrayParam>(param);
      const std::vector<std::byte> bytes = contents(array);
      if (!pooled) buffers.push_back(device.allocate(bytes.size()));
      queue->copy_to_device(buffers.back(), offset, bytes.data(), bytes.size()).wait();
      args.values.push_back(
          strata::device::KernelArg::array_of(buffers.back(), array.type, offset));
      if (pooled) offset += aligned(bytes.size());
      compile.placements.push_back({strata::device::Dim3{0, 0, 0}, dim3_of(array.shape, 1)});
    }
    compiled = device.compile(c.kernel.definition(), compile);
    geometry = {dim3_of(c.global, 1), dim3_of(c.block, 1), static_cast<int>(c.global.size())};
  }

  // Total µs of `count` launches in a row and the wait for them.
  double run(int count) {
    const auto start = Clock::now();
    for (int i = 0; i < count; ++i)
      queue->launch(*compiled, geometry, args);
    queue->finish();
    return std::chrono::duration<double>(Clock::now() - start).count() * 1e6;
  }
};

// The case `name` sized so that one direct launch takes about `kernel_ms` on the device: the
// work grows by the measured shortfall (at most 64x a step) until a launch takes at least 80 %
// of it. The base sizes suit a CPU core; a GPU needs hundreds of times the work.
Case calibrated(strata::device::Device& device, const std::string& name, double kernel_ms) {
  double work = 1;
  for (int step = 0;; ++step) {
    std::vector<Case> sized = cases(work);
    Case c = *std::find_if(sized.begin(), sized.end(),
                           [&](const Case& candidate) { return candidate.name == name; });
    DirectLaunch direct(device, c);
    direct.run(2);
    const double ms = direct.run(5) / 5 / 1000;
    if (ms >= 0.8 * kernel_ms || step == 8) {
      std::fprintf(stderr, "%s: %.3f ms a launch at %.1fx the base work\n", name.c_str(), ms, work);
      return c;
    }
    work *= std::clamp(kernel_ms / std::max(ms, 1e-6), 1.25, 64.0);
  }
}

// The sizes of a case, for the report: each array's shape.
std::string shapes_of(const Case& c) {
  std::string text;
  for (const auto& param : c.params) {
    const auto* array = std::get_if<ArrayParam>(&param);
    if (array == nullptr) continue;
    std::string shape;
    for (std::uint64_t extent : array->shape)
      shape += (shape.empty() ? "" : "x") + std::to_string(extent);
    text += (text.empty() ? "" : " ") + shape;
  }
  return text;
}

// One benchmark's measurement, as a JSON object.
std::string measure(strata::node::Node& node, strata::cluster::Driver& driver, const Case& c,
                    int repetitions, int launches, bool pooled, std::uint64_t alignment) {
  strata::device::Device& device = *node.devices().front();
  Arrays arrays(node, driver);
  std::vector<Argument> distributed;
  for (std::size_t p = 0; p < c.params.size(); ++p) {
    if (const auto* scalar = std::get_if<Argument>(&c.params[p])) {
      distributed.push_back(*scalar);
      continue;
    }
    const auto& array = std::get<ArrayParam>(c.params[p]);
    // One chunk (row blocks as tall as the array), on device 0 of rank 0.
    Array made = arrays.create(c.name + "_" + std::to_string(p), array.type, array.shape,
                               Distribution::row_blocks(array.shape[0]));
    arrays.write(made, contents(array));
    distributed.emplace_back(made);
  }
  DirectLaunch direct(device, c, pooled, alignment);
  std::vector<std::uint64_t> superblock;  // every block of the grid in one superblock
  for (std::size_t d = 0; d < c.global.size(); ++d)
    superblock.push_back((c.global[d] + c.block[d] - 1) / c.block[d]);
  const Grid grid{c.global, c.block};
  const WorkDistribution work = WorkDistribution::tiled(superblock);

  const auto run_direct = [&](int count) { return direct.run(count); };
  const auto run_distributed = [&](int count) {
    const auto start = Clock::now();
    for (int i = 0; i < count; ++i)
      arrays.launch(c.kernel, grid, work, distributed);
    arrays.synchronize();
    return std::chrono::duration<double>(Clock::now() - start).count() * 1e6;
  };
  run_direct(launches);
  run_distributed(launches);
  const strata::array::LaunchStats before = arrays.stats();
  const strata::cluster::PlanStats plans_before = driver.stats();
  // Per repetition, batches of L and 4L launches on each side (ABBA): the batch of L gives the
  // end-to-end overhead; the difference between the two, the cost of one more launch in a
  // running batch (steady state), apart from the batch's one-time start and end.
  const int longer = 4 * launches;
  std::vector<double> direct_us, distributed_us, paired, direct_step, distributed_step, steady;
  std::vector<double> direct_fixed, distributed_fixed;
  for (int rep = 0; rep < repetitions; ++rep) {
    double d = 0, a = 0, d4 = 0, a4 = 0;
    if (rep % 2 == 0) {
      d = run_direct(launches);
      a = run_distributed(launches);
      a4 = run_distributed(longer);
      d4 = run_direct(longer);
    } else {
      a = run_distributed(launches);
      d = run_direct(launches);
      d4 = run_direct(longer);
      a4 = run_distributed(longer);
    }
    direct_us.push_back(d / launches);
    distributed_us.push_back(a / launches);
    paired.push_back((a / d - 1) * 100);
    const double d_step = (d4 - d) / (longer - launches);
    const double a_step = (a4 - a) / (longer - launches);
    direct_step.push_back(d_step);
    distributed_step.push_back(a_step);
    steady.push_back((a_step / d_step - 1) * 100);
    direct_fixed.push_back(d - launches * d_step);
    distributed_fixed.push_back(a - launches * a_step);
  }
  const strata::array::LaunchStats stats = arrays.stats();
  const strata::cluster::PlanStats plans = driver.stats();
  const auto per_launch = [&](std::uint64_t count) {
    return std::to_string(static_cast<double>(count) / (repetitions * (launches + longer)));
  };
  const std::string planned =
      ", \"per_launch\": {\"direct_uses\": " + per_launch(stats.direct_uses - before.direct_uses) +
      ", \"assembled_regions\": " + per_launch(stats.assembled_regions - before.assembled_regions) +
      ", \"box_copies\": " + per_launch(stats.box_copies - before.box_copies) +
      ", \"reused_regions\": " + per_launch(stats.reused_regions - before.reused_regions) +
      ", \"operations\": " + per_launch(plans.operations - plans_before.operations) + "}";
  for (const Argument& argument : distributed) {
    if (!argument.is_array()) continue;
    Array array = argument.array();
    arrays.destroy(array);
  }
  return "{\"benchmark\": " + json_string(c.name) +
         ", \"direct_buffers\": " + json_string(pooled ? "pooled" : "separate") +
         ", \"direct_alignment\": " + std::to_string(alignment) +
         ", \"device\": " + json_string(device.info().name) +
         ", \"arrays\": " + json_string(shapes_of(c)) +
         ", \"launches\": " + std::to_string(launches) +
         ", \"direct_us_per_launch\": " + json_list(direct_us) +
         ", \"distributed_us_per_launch\": " + json_list(distributed_us) +
         ", \"overhead_percent\": " + json_list(paired) +
         ", \"overhead_percent_median\": " + std::to_string(median_of(paired)) +
         ", \"direct_us_per_added_launch\": " + json_list(direct_step) +
         ", \"distributed_us_per_added_launch\": " + json_list(distributed_step) +
         ", \"steady_overhead_percent\": " + json_list(steady) +
         ", \"direct_batch_fixed_us\": " + json_list(direct_fixed) +
         ", \"distributed_batch_fixed_us\": " + json_list(distributed_fixed) + planned + "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "cpu", only;
  int repetitions = 7, launches = 50;
  double kernel_ms = 0;         // 0: the base sizes
  bool pooled = false;          // the direct side's arrays in one buffer
  std::uint64_t alignment = 0;  // their offsets' alignment there; 0: the pool's
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--backend") backend = argv[i + 1];
    if (flag == "--repetitions") repetitions = std::atoi(argv[i + 1]);
    if (flag == "--launches") launches = std::atoi(argv[i + 1]);
    if (flag == "--only") only = argv[i + 1];
    if (flag == "--kernel-ms") kernel_ms = std::atof(argv[i + 1]);
    if (flag == "--direct-buffers") pooled = std::string(argv[i + 1]) == "pooled";
    if (flag == "--direct-alignment") alignment = std::strtoull(argv[i + 1], nullptr, 10);
  }
  strata::node::NodeOptions node_options;
  node_options.config.section<strata::device::DeviceSettings>().backends = backend;
  // A memory-bound kernel of a millisecond on a GPU reads and writes gigabytes: the arrays' host
  // copies must fit the host space, or they would be written to disk.
  if (kernel_ms > 0)
    node_options.config.section<strata::memory::MemorySettings>().host_capacity = 8ull << 30;
  strata::node::Node node(argc, argv, node_options);
  const std::vector<Case> all = cases();
  std::vector<ArrayKernel> kernels;
  for (const Case& c : all)
    kernels.push_back(c.kernel);
  Arrays::prepare(node, kernels);
  // Each benchmark's line is printed as soon as it is measured (a run cut short keeps them).
  return node.program().run([&](strata::cluster::Driver& driver) {
    if (node.devices().empty()) {
      std::printf("{\"backend\": \"%s\", \"skipped\": \"no %s device found\"}\n", backend.c_str(),
                  backend.c_str());
      return;
    }
    for (const Case& c : all) {
      if (!only.empty() && (',' + only + ',').find(',' + c.name + ',') == std::string::npos)
        continue;
      const std::string line = measure(
          node, driver, kernel_ms > 0 ? calibrated(*node.devices().front(), c.name, kernel_ms) : c,
          repetitions, launches, pooled, alignment);
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
      std::fprintf(stderr, "done: %s\n", c.name.c_str());
    }
  });
}
