// Co-clustering (the lightning paper's §4.6 application, CGC's algorithm) through Arrays::launch
// against the same five kernels launched directly on the device layer, in the same run (issue
// 17: Strata's path within 1 % of hand-written code of the same kernels). One device; every
// array is one chunk and every launch one superblock on the Arrays side. The direct side is what
// hand-written code does: the same definitions compiled with the same whole-array placements,
// each reduction's target zeroed on the compute queue before its kernel, everything on that one
// in-order queue. Per repetition: I iterations each way, then a wait, alternating (ABBA) after a
// warm-up; the labels both sides end with must be equal. The process's CPU time during each side
// is reported too: on a machine whose cores also run the kernels (the CPU device, PoCL), what the
// host spends planning and running tasks is taken from the kernels. One JSON line on stdout.
// Usage: bench_coclustering_overhead [--backend cpu|opencl|cuda] [--rows M] [--cols N]
//        [--iterations I] [--repetitions R]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "bench_json.hpp"
#include "lightning/coclustering_data.hpp"
#include "lightning/coclustering_kernels.hpp"
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
using strata::device::DeviceBuffer;
using strata::device::Dim3;
using strata::device::ElementType;
using strata::device::KernelArg;
using Clock = std::chrono::steady_clock;

constexpr int k = 4, l = 3;
constexpr std::uint64_t block = 16;

// One array of the application: its element type and shape, the same on both sides.
struct ArraySpec {
  ElementType type;
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes() const {
    std::uint64_t count = strata::device::size_of(type);
    for (const std::uint64_t extent : shape)
      count *= extent;
    return count;
  }
};

// One kernel launch of an iteration: its parameters (scalars, or array names) in signature
// order, its grid, and the arrays it reduces into (zeroed first on the direct side).
struct Step {
  ArrayKernel kernel;
  std::vector<std::variant<Argument, std::string>> params;
  std::vector<std::uint64_t> global;
  std::vector<std::string> reduces;
};

Dim3 dim3_of(const std::vector<std::uint64_t>& v) {
  return {v[0], v.size() > 1 ? v[1] : 1, v.size() > 2 ? v[2] : 1};
}

// CPU time of the whole process so far (every thread), in seconds.
double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

template <class T>
std::span<const std::byte> bytes_of(const std::vector<T>& values) {
  return std::as_bytes(std::span(values));
}

std::string measure(strata::node::Node& node, strata::cluster::Driver& driver, std::uint64_t m,
                    std::uint64_t n, int iterations, int repetitions) {
  strata::device::Device& device = *node.devices().front();
  strata::device::Queue& queue = device.queue(strata::device::QueueKind::compute);
  const strata::lightning::PlantedMatrix planted = strata::lightning::planted_matrix(m, n, k, l, 1);
  const strata::lightning::CoclusteringStart first =
      strata::lightning::coclustering_start(planted.values, m, n, k, l);
  const std::vector<std::int32_t>& row_init = first.rows;
  const std::vector<std::int32_t>& col_init = first.cols;
  const auto gavg = static_cast<float>(first.mean);
  const auto eps = 1e-8f;

  const std::map<std::string, ArraySpec> specs = {
      {"Z", {ElementType::f32, {m, n}}},        {"rows", {ElementType::i32, {m}}},
      {"cols", {ElementType::i32, {n}}},        {"sums", {ElementType::f32, {k, l}}},
      {"counts", {ElementType::i32, {k, l}}},   {"row_sums", {ElementType::f32, {m, l}}},
      {"col_sums", {ElementType::f32, {n, k}}}, {"row_counts", {ElementType::i32, {k}}},
      {"error", {ElementType::f32, {1}}},
  };
  const auto m32 = Argument::value(static_cast<std::int32_t>(m));
  const auto n32 = Argument::value(static_cast<std::int32_t>(n));
  const auto k32 = Argument::value(std::int32_t{k});
  const auto l32 = Argument::value(std::int32_t{l});
  const std::vector<ArrayKernel> kernels = strata::lightning::coclustering_kernels();
  // The application's iteration (apps/lightning/coclustering_main.cpp).
  const std::vector<Step> steps = {
      {kernels[0],
       {m32, n32, l32, "Z", "rows", "cols", "sums", "counts"},
       {n, m},
       {"sums", "counts"}},
      {kernels[1], {m32, n32, l32, "Z", "cols", "row_sums"}, {n, m}, {"row_sums"}},
      {kernels[2],
       {m32, k32, l32, Argument::value(gavg), Argument::value(eps), "row_sums", "sums", "counts",
        "rows"},
       {m},
       {}},
      {kernels[3],
       {m32, n32, k32, "Z", "rows", "col_sums", "row_counts"},
       {n, m},
       {"col_sums", "row_counts"}},
      {kernels[4],
       {n32, k32, l32, Argument::value(gavg), Argument::value(eps), "col_sums", "sums", "counts",
        "row_counts", "cols", "error"},
       {n},
       {"error"}},
  };

  // The Arrays side: one chunk per array, one superblock per launch.
  Arrays arrays(node, driver);
  std::map<std::string, Array> distributed;
  for (const auto& [name, spec] : specs) {
    distributed.emplace(
        name, arrays.create(name, spec.type, spec.shape, Distribution::row_blocks(spec.shape[0])));
  }
  arrays.write(distributed.at("Z"), bytes_of(planted.values));
  const auto run_distributed = [&](int count) {
    const auto start = Clock::now();
    for (int it = 0; it < count; ++it) {
      for (const Step& step : steps) {
        std::vector<Argument> args;
        for (const auto& param : step.params) {
          if (const auto* scalar = std::get_if<Argument>(&param)) {
            args.push_back(*scalar);
          } else {
            args.emplace_back(distributed.at(std::get<std::string>(param)));
          }
        }
        std::vector<std::uint64_t> superblock;
        const std::vector<std::uint64_t> block_shape(step.global.size(), block);
        for (const std::uint64_t extent : step.global)
          superblock.push_back((extent + block - 1) / block);
        arrays.launch(step.kernel, Grid{step.global, block_shape},
                      WorkDistribution::tiled(superblock), args);
      }
    }
    arrays.synchronize();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  const auto reset_distributed = [&] {
    arrays.write(distributed.at("rows"), bytes_of(row_init));
    arrays.write(distributed.at("cols"), bytes_of(col_init));
    arrays.synchronize();
  };

  // The direct side: a buffer per array, the kernels compiled for whole arrays.
  std::map<std::string, DeviceBuffer> buffers;
  std::uint64_t largest = 0;
  for (const auto& [name, spec] : specs) {
    buffers.emplace(name, device.allocate(spec.bytes()));
    largest = std::max(largest, spec.bytes());
  }
  const std::vector<std::byte> zeros(largest);
  queue.copy_to_device(buffers.at("Z"), 0, planted.values.data(), specs.at("Z").bytes()).wait();
  struct DirectStep {
    std::shared_ptr<const strata::device::CompiledKernel> compiled;
    strata::device::LaunchGeometry geometry;
    strata::device::KernelArgs args;
    std::vector<std::string> reduces;
  };
  std::vector<DirectStep> direct;
  for (const Step& step : steps) {
    DirectStep made;
    strata::device::CompileOptions compile;
    for (const auto& param : step.params) {
      if (const auto* scalar = std::get_if<Argument>(&param)) {
        KernelArg value;
        value.type = scalar->scalar().type;
        value.scalar_bytes = scalar->scalar().bytes;
        made.args.values.push_back(value);
        continue;
      }
      const std::string& name = std::get<std::string>(param);
      const ArraySpec& spec = specs.at(name);
      made.args.values.push_back(
          KernelArg::array_of(buffers.at(name), spec.type, std::uint64_t{0}));
      compile.placements.push_back({Dim3{0, 0, 0}, dim3_of(spec.shape)});
    }
    made.compiled = device.compile(step.kernel.definition(), compile);
    const std::vector<std::uint64_t> block_shape(step.global.size(), block);
    made.geometry = {dim3_of(step.global), dim3_of(block_shape),
                     static_cast<int>(step.global.size())};
    made.reduces = step.reduces;
    direct.push_back(std::move(made));
  }
  const auto run_direct = [&](int count) {
    const auto start = Clock::now();
    for (int it = 0; it < count; ++it) {
      for (const DirectStep& step : direct) {
        for (const std::string& name : step.reduces)
          queue.copy_to_device(buffers.at(name), 0, zeros.data(), specs.at(name).bytes());
        queue.launch(*step.compiled, step.geometry, step.args);
      }
    }
    queue.finish();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  const auto reset_direct = [&] {
    queue.copy_to_device(buffers.at("rows"), 0, row_init.data(), specs.at("rows").bytes());
    queue.copy_to_device(buffers.at("cols"), 0, col_init.data(), specs.at("cols").bytes());
    queue.finish();
  };

  reset_direct();
  run_direct(1);
  reset_distributed();
  run_distributed(1);
  const strata::cluster::PlanStats plans_before = driver.stats();
  std::vector<double> direct_s, distributed_s, paired, direct_cpu, distributed_cpu;
  for (int rep = 0; rep < repetitions; ++rep) {
    reset_direct();
    reset_distributed();
    double d = 0, a = 0, d_cpu = 0, a_cpu = 0;
    const auto timed_direct = [&] {
      const double before = process_cpu_seconds();
      d = run_direct(iterations);
      d_cpu = process_cpu_seconds() - before;
    };
    const auto timed_distributed = [&] {
      const double before = process_cpu_seconds();
      a = run_distributed(iterations);
      a_cpu = process_cpu_seconds() - before;
    };
    if (rep % 2 == 0) {
      timed_direct();
      timed_distributed();
    } else {
      timed_distributed();
      timed_direct();
    }
    direct_s.push_back(d / iterations);
    distributed_s.push_back(a / iterations);
    direct_cpu.push_back(d_cpu / iterations);
    distributed_cpu.push_back(a_cpu / iterations);
    paired.push_back((a / d - 1) * 100);
  }
  const strata::cluster::PlanStats plans = driver.stats();
  // Both sides ran the same iterations from the same start: the same labels.
  const std::vector<std::int32_t> rows = arrays.read_as<std::int32_t>(distributed.at("rows"));
  const std::vector<std::int32_t> cols = arrays.read_as<std::int32_t>(distributed.at("cols"));
  std::vector<std::int32_t> direct_rows(m), direct_cols(n);
  queue.copy_to_host(direct_rows.data(), buffers.at("rows"), 0, specs.at("rows").bytes()).wait();
  queue.copy_to_host(direct_cols.data(), buffers.at("cols"), 0, specs.at("cols").bytes()).wait();
  const bool equal = rows == direct_rows && cols == direct_cols;
  for (auto& [name, array] : distributed)
    arrays.destroy(array);
  const double launches = static_cast<double>(repetitions) * iterations * steps.size();
  return "{\"benchmark\": \"coclustering\", \"device\": " + json_string(device.info().name) +
         ", \"rows\": " + std::to_string(m) + ", \"cols\": " + std::to_string(n) +
         ", \"iterations\": " + std::to_string(iterations) +
         ", \"direct_s_per_iteration\": " + json_list(direct_s) +
         ", \"distributed_s_per_iteration\": " + json_list(distributed_s) +
         ", \"overhead_percent\": " + json_list(paired) +
         ", \"overhead_percent_median\": " + std::to_string(median_of(paired)) +
         ", \"direct_cpu_s_per_iteration\": " + json_list(direct_cpu) +
         ", \"distributed_cpu_s_per_iteration\": " + json_list(distributed_cpu) +
         ", \"labels_equal\": " + (equal ? "true" : "false") + ", \"operations_per_launch\": " +
         std::to_string(static_cast<double>(plans.operations - plans_before.operations) /
                        launches) +
         "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "cpu";
  std::uint64_t rows = 2000, cols = 1000;
  int iterations = 10, repetitions = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--backend") backend = argv[i + 1];
    if (flag == "--rows") rows = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--cols") cols = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--iterations") iterations = std::atoi(argv[i + 1]);
    if (flag == "--repetitions") repetitions = std::atoi(argv[i + 1]);
  }
  strata::node::NodeOptions node_options;
  node_options.config.section<strata::device::DeviceSettings>().backends = backend;
  strata::node::Node node(argc, argv, node_options);
  Arrays::prepare(node, strata::lightning::coclustering_kernels());
  std::string line;
  const int status = node.program().run([&](strata::cluster::Driver& driver) {
    if (node.devices().empty()) {
      line = "{\"benchmark\": \"coclustering\", \"skipped\": \"no " + backend + " device found\"}";
      return;
    }
    line = measure(node, driver, rows, cols, iterations, repetitions);
  });
  if (status != 0 || node.rank() != 0) return status;
  std::printf("%s\n", line.c_str());
  return 0;
}
