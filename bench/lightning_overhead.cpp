// The lightning benchmarks' kernels launched through Arrays::launch against the same kernels
// launched directly on the device layer, in the same run (issue 17: overhead against hand-written
// code, data fitting the device, goal <= 1 %). Per benchmark: every array one chunk on device 0
// of rank 0, one superblock covering the grid; the direct side compiles the same definition with
// the same whole-array placements, uploads the same contents once and launches on the device's
// compute queue. Each repetition launches L times in a row and then waits, direct and distributed
// alternating (ABBA) after an untimed warm-up of each. One JSON line per benchmark on stdout.
// Usage: bench_lightning_overhead [--backend cpu|opencl|cuda] [--repetitions R] [--launches L]
//        [--only NAME]

#include <algorithm>
#include <chrono>
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

// Sizes for a kernel of about a millisecond on one CPU core's worth of work; the same on every
// backend, so the figures compare the launch paths, not the devices.
std::vector<Case> cases() {
  namespace lightning = strata::lightning;
  constexpr std::uint64_t options = 1 << 16, cells = 256, n_gemm = 128, rows = 1 << 14, nnz = 16,
                          bodies = 1024;
  std::vector<Case> all;
  all.push_back({"black_scholes",
                 lightning::black_scholes_kernel(),
                 {Argument::value<std::int32_t>(options), f32({options}, 30.0),
                  f32({options}, 35.0), f32({options}, 1.5), f32({options}, 0.02),
                  f32({options}, 0.3), f32({options}, 0.0), f32({options}, 0.0)},
                 {options},
                 {256}});
  all.push_back({"hotspot",
                 lightning::hotspot_kernel(),
                 {Argument::value<std::int32_t>(cells), Argument::value<std::int32_t>(cells),
                  Argument::value(0.5f), Argument::value(0.1f), Argument::value(0.1f),
                  Argument::value(0.01f), Argument::value(80.0f), f32({cells, cells}, 0.5),
                  f32({cells, cells}, 320.0), f32({cells, cells}, 0.0)},
                 {cells, cells},
                 {16, 16}});
  all.push_back({"gemm",
                 lightning::gemm_kernel(),
                 {Argument::value<std::int32_t>(n_gemm), f32({n_gemm, n_gemm}, 0.5),
                  f32({n_gemm, n_gemm}, 0.25), f32({n_gemm, n_gemm}, 0.0)},
                 {n_gemm, n_gemm},
                 {16, 16}});
  all.push_back({"spmv",
                 lightning::spmv_kernel(),
                 {Argument::value<std::int32_t>(rows), Argument::value<std::int32_t>(nnz),
                  f32({rows, nnz}, 0.5), ArrayParam{ElementType::i32, {rows, nnz}, 3},
                  f32({rows}, 1.0), f32({rows}, 0.0)},
                 {rows},
                 {256}});
  all.push_back({"nbody",
                 lightning::nbody_kernel(),
                 {Argument::value<std::int32_t>(bodies), f32({bodies, 4}, 1.0),
                  f32({bodies, 4}, 0.0), f32({bodies, 4}, 0.0)},
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

// One benchmark's measurement, as a JSON object.
std::string measure(strata::node::Node& node, strata::cluster::Driver& driver, const Case& c,
                    int repetitions, int launches) {
  strata::device::Device& device = *node.devices().front();
  Arrays arrays(node, driver);
  std::vector<Argument> distributed;
  std::deque<strata::device::DeviceBuffer> buffers;  // stable: the direct arguments point at them
  strata::device::KernelArgs direct;
  strata::device::CompileOptions compile;
  strata::device::Queue& queue = device.queue(strata::device::QueueKind::compute);
  for (std::size_t p = 0; p < c.params.size(); ++p) {
    if (const auto* scalar = std::get_if<Argument>(&c.params[p])) {
      distributed.push_back(*scalar);
      strata::device::KernelArg value;
      value.type = scalar->scalar().type;
      value.scalar_bytes = scalar->scalar().bytes;
      direct.values.push_back(value);
      continue;
    }
    const auto& array = std::get<ArrayParam>(c.params[p]);
    const std::vector<std::byte> bytes = contents(array);
    // One chunk (row blocks as tall as the array), on device 0 of rank 0.
    Array made = arrays.create(c.name + "_" + std::to_string(p), array.type, array.shape,
                               Distribution::row_blocks(array.shape[0]));
    arrays.write(made, bytes);
    distributed.emplace_back(made);
    buffers.push_back(device.allocate(bytes.size()));
    queue.copy_to_device(buffers.back(), 0, bytes.data(), bytes.size()).wait();
    direct.values.push_back(
        strata::device::KernelArg::array_of(buffers.back(), array.type, std::uint64_t{0}));
    compile.placements.push_back({strata::device::Dim3{0, 0, 0}, dim3_of(array.shape, 1)});
  }
  const auto compiled = device.compile(c.kernel.definition(), compile);
  const strata::device::LaunchGeometry geometry{dim3_of(c.global, 1), dim3_of(c.block, 1),
                                                static_cast<int>(c.global.size())};
  std::vector<std::uint64_t> superblock;  // every block of the grid in one superblock
  for (std::size_t d = 0; d < c.global.size(); ++d)
    superblock.push_back((c.global[d] + c.block[d] - 1) / c.block[d]);
  const Grid grid{c.global, c.block};
  const WorkDistribution work = WorkDistribution::tiled(superblock);

  // Total µs of `count` launches in a row and the wait for them.
  const auto run_direct = [&](int count) {
    const auto start = Clock::now();
    for (int i = 0; i < count; ++i)
      queue.launch(*compiled, geometry, direct);
    queue.finish();
    return std::chrono::duration<double>(Clock::now() - start).count() * 1e6;
  };
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
         ", \"device\": " + json_string(device.info().name) +
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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--backend") backend = argv[i + 1];
    if (flag == "--repetitions") repetitions = std::atoi(argv[i + 1]);
    if (flag == "--launches") launches = std::atoi(argv[i + 1]);
    if (flag == "--only") only = argv[i + 1];
  }
  strata::node::NodeOptions node_options;
  node_options.config.section<strata::device::DeviceSettings>().backends = backend;
  strata::node::Node node(argc, argv, node_options);
  const std::vector<Case> all = cases();
  std::vector<ArrayKernel> kernels;
  for (const Case& c : all)
    kernels.push_back(c.kernel);
  Arrays::prepare(node, kernels);
  std::vector<std::string> lines;
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    if (node.devices().empty()) {
      lines.push_back("{\"backend\": \"" + backend + "\", \"skipped\": \"no " + backend +
                      " device found\"}");
      return;
    }
    for (const Case& c : all) {
      if (!only.empty() && c.name != only) continue;
      lines.push_back(measure(node, driver, c, repetitions, launches));
      std::fprintf(stderr, "done: %s\n", c.name.c_str());
    }
  });
  if (status != 0 || node.rank() != 0) return status;
  for (const std::string& line : lines)
    std::printf("%s\n", line.c_str());
  return 0;
}
