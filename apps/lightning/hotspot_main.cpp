// lightning_hotspot: the lightning paper's HotSpot benchmark (§4.2, after Rodinia) on
// distributed arrays — a generated chip's temperature and power grids in tiles of rows with a
// halo of 1, `iterations` explicit steps ping-ponging between two temperature arrays on the
// devices of every rank (the planner exchanges the halos), throughput, and a check against the
// sequential reference. Runs under `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <utility>

#include "lightning/hotspot_data.hpp"
#include "lightning/hotspot_kernels.hpp"
#include "lightning/program.hpp"
#include "lightning/run_options.hpp"
#include "strata/array/arrays.hpp"
#include "strata/base/error.hpp"

namespace {

using namespace strata;
using array::Argument;
using array::Array;
using array::Distribution;
using array::Grid;
using array::WorkDistribution;

struct Options : lightning::RunOptions {
  std::uint64_t n = 0;  // cells per side; sets --rows and --cols
  std::uint64_t rows = 4096;
  std::uint64_t cols = 4096;
  int iterations = 10;
  std::uint64_t chunk = 1024;  // rows per tile
  std::uint64_t block = 16;    // threads per block side (Rodinia's BLOCK_SIZE)
};

struct Outcome {
  lightning::Timed timed;
  std::vector<float> temp;
  array::LaunchStats stats;
};

Outcome run_hotspot(node::Node& node, cluster::Driver& driver, const Options& options,
                    const lightning::Chip& chip, const lightning::HotspotConstants& constants) {
  using device::ElementType;
  const array::ArrayKernel kernel = lightning::hotspot_kernel();
  array::Arrays arrays(node, driver);
  // Tiles of `chunk` whole rows with a halo of one row above and below (the column halo is
  // clamped away: tiles span every column).
  Distribution tiles = Distribution::stencil({options.chunk, options.cols}, {1, 1});
  if (options.round_robin()) tiles = tiles.assigned(Distribution::Assign::round_robin);
  // A superblock is a tile's rows of blocks when --chunk is a multiple of --block: it then reads
  // and writes its own tile directly.
  const std::uint64_t block_rows = std::max<std::uint64_t>(1, options.chunk / options.block);
  const std::uint64_t block_cols = (options.cols + options.block - 1) / options.block;
  const WorkDistribution work = options.round_robin()
                                    ? WorkDistribution::round_robin({block_cols, block_rows})
                                    : WorkDistribution::tiled({block_cols, block_rows});
  const std::vector<std::uint64_t> shape{options.rows, options.cols};
  Array power = arrays.from_host<float>("power", shape, tiles, chip.power);
  Array temp = arrays.from_host<float>("temp", shape, tiles, chip.temp);
  Array out = arrays.create("out", ElementType::f32, shape, tiles);
  const Grid grid{{options.cols, options.rows}, {options.block, options.block}};
  const auto step = [&] {
    arrays.launch(kernel, grid, work,
                  {Argument::value(static_cast<std::int32_t>(options.rows)),
                   Argument::value(static_cast<std::int32_t>(options.cols)),
                   Argument::value(constants.step_div_cap), Argument::value(constants.rx_1),
                   Argument::value(constants.ry_1), Argument::value(constants.rz_1),
                   Argument::value(constants.ambient), power, temp, out});
    std::swap(temp, out);
  };
  // Two steps untimed compile every superblock's kernel for both directions of the ping-pong;
  // the starting temperatures then go back.
  step();
  step();
  arrays.write(temp, std::as_bytes(std::span<const float>(chip.temp)));
  Outcome outcome;
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (int it = 0; it < options.iterations; ++it)
      step();
  });
  outcome.temp = arrays.read_as<float>(temp);
  outcome.stats = arrays.stats();
  for (Array* gone : {&power, &temp, &out})
    arrays.destroy(*gone);
  return outcome;
}

// The kernels and the reference do the same f32 operations in the same order (the OpenCL source
// turns FP_CONTRACT off), so the temperatures should agree exactly. A compiler that still fuses
// a multiply-add changes a step by about an ulp of the temperature (3.1e-5 K near 330 K), and
// the step averages neighbours with positive weights summing to at most 1, so such differences
// add up at most linearly: 1e-4 K per iteration, and at least 1e-3 K.
bool check(const std::vector<float>& got, const std::vector<float>& expected, int iterations) {
  const double tolerance = std::max(1e-3, 1e-4 * iterations);
  double worst = 0;
  std::uint64_t outside = 0;
  std::uint64_t exact = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double error = std::fabs(static_cast<double>(got[i]) - expected[i]);
    worst = std::max(worst, error);
    outside += error <= tolerance ? 0 : 1;  // a NaN fails too
    exact += got[i] == expected[i] ? 1 : 0;
  }
  const bool passed = outside == 0;
  std::printf(
      "check: %s (%llu of %zu cells further than %.2g K from the sequential reference, the same "
      "f32 arithmetic in the same order; largest error %.3g K, %llu cells equal)\n",
      passed ? "passed" : "FAILED", static_cast<unsigned long long>(outside), expected.size(),
      tolerance, worst, static_cast<unsigned long long>(exact));
  return passed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("HotSpot on distributed arrays (the lightning paper's benchmark, after Rodinia)");
  app.add_option("--n", options.n, "cells per side (sets --rows and --cols)")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--rows", options.rows, "rows of cells")->check(CLI::Range(1, 1 << 16));
  app.add_option("--cols", options.cols, "columns of cells")->check(CLI::Range(1, 1 << 16));
  app.add_option("--iterations", options.iterations, "steps")->check(CLI::Range(1, 100000));
  app.add_option("--chunk", options.chunk, "rows per tile, rounded up to whole blocks")
      ->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "threads per block side (block x block threads)")
      ->check(CLI::Range(1, 32));
  lightning::add_run_options(app, options,
                             {.seed = "seed of the generated chip",
                              .distribution = "rows or round-robin (tiles dealt in turn)"});
  CLI11_PARSE(app, argc, argv);
  options.chunk = lightning::whole_blocks(options.chunk, options.block);
  return lightning::exit_status("lightning_hotspot", [&] {
    if (options.n != 0) options.rows = options.cols = options.n;
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::hotspot_kernels());
    const lightning::Chip chip = lightning::generate_chip(options.rows, options.cols, options.seed);
    const lightning::HotspotConstants constants = lightning::hotspot_constants();
    Outcome outcome;
    const int status = node.program().run([&](cluster::Driver& driver) {
      outcome = run_hotspot(node, driver, options, chip, constants);
    });
    if (status != 0 || node.rank() != 0) return status;
    const double cells =
        static_cast<double>(options.rows) * static_cast<double>(options.cols) * options.iterations;
    std::printf(
        "hotspot: %llu x %llu cells, %d iterations, tiles of %llu rows with a halo of 1 (%s), "
        "blocks of %llu x %llu, %d rank(s) x %zu device(s)\n",
        static_cast<unsigned long long>(options.rows),
        static_cast<unsigned long long>(options.cols), options.iterations,
        static_cast<unsigned long long>(options.chunk), options.distribution.c_str(),
        static_cast<unsigned long long>(options.block),
        static_cast<unsigned long long>(options.block), node.size(), node.devices().size());
    // Each cell reads its temperature and power and writes one temperature per step.
    std::printf(
        "time %.4f s, throughput %.2f Mcells*iterations/s (%.3f GB/s of grids), %llu superblocks, "
        "%llu box copies\n",
        outcome.timed.seconds, cells / outcome.timed.seconds / 1e6,
        cells * 12 / outcome.timed.seconds / 1e9,
        static_cast<unsigned long long>(outcome.stats.superblocks),
        static_cast<unsigned long long>(outcome.stats.box_copies));
    lightning::print_plan_counts(outcome.timed.counts);
    if (!options.check) return 0;
    double reference_seconds = 0;
    const std::vector<float> expected = lightning::measure(reference_seconds, [&] {
      return lightning::hotspot_reference(chip, options.rows, options.cols, options.iterations,
                                          constants);
    });
    lightning::print_reference("one thread, f32", reference_seconds, outcome.timed.seconds);
    return check(outcome.temp, expected, options.iterations) ? 0 : 1;
  });
}
