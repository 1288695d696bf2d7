// lightning_nbody: the lightning paper's N-Body benchmark (§4.2, after the CUDA samples) on
// distributed arrays — random bodies whose positions and masses are replicated on every device
// and whose velocities lie in rows, `iterations` all-pairs steps on the devices of every rank
// ping-ponging between two position arrays (the planner copies each superblock's new positions to
// every replica), throughput, and a check against the sequential reference. Runs under
// `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <utility>

#include "lightning/nbody_data.hpp"
#include "lightning/nbody_kernels.hpp"
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
  std::uint64_t n = 16384;  // bodies
  int iterations = 10;
  std::uint64_t chunk = 4096;  // bodies per chunk of the velocities (and per superblock)
  std::uint64_t block = 64;
};

struct Outcome {
  lightning::Timed timed;
  lightning::Bodies bodies;
  array::LaunchStats stats;
};

Outcome run_nbody(node::Node& node, cluster::Driver& driver, const Options& options,
                  const lightning::Bodies& start_bodies) {
  using device::ElementType;
  const array::ArrayKernel kernel = lightning::nbody_kernel();
  array::Arrays arrays(node, driver);
  const Distribution cut = lightning::chunk_distribution(options, options.chunk);
  const WorkDistribution work = lightning::chunk_work(options, options.chunk, options.block);
  const std::vector<std::uint64_t> shape{options.n, 4};
  Array pos = arrays.from_host<float>("pos", shape, Distribution::replicated(), start_bodies.pos);
  Array next = arrays.create("next", ElementType::f32, shape, Distribution::replicated());
  Array vel = arrays.from_host<float>("vel", shape, cut, start_bodies.vel);
  const auto n32 = static_cast<std::int32_t>(options.n);
  const auto step = [&] {
    arrays.launch(kernel, Grid{{options.n}, {options.block}}, work,
                  {Argument::value(n32), pos, vel, next});
    std::swap(pos, next);
  };
  // Two steps untimed compile every superblock's kernel for both directions of the ping-pong;
  // the starting positions and velocities then go back.
  step();
  step();
  arrays.write(pos, std::as_bytes(std::span<const float>(start_bodies.pos)));
  arrays.write(vel, std::as_bytes(std::span<const float>(start_bodies.vel)));
  Outcome outcome;
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (int it = 0; it < options.iterations; ++it)
      step();
  });
  outcome.bodies.pos = arrays.read_as<float>(pos);
  outcome.bodies.vel = arrays.read_as<float>(vel);
  outcome.stats = arrays.stats();
  for (Array* gone : {&pos, &next, &vel})
    arrays.destroy(*gone);
  return outcome;
}

// The kernels and the reference do the same f32 operations in the same order (the OpenCL source
// turns FP_CONTRACT off), so with a correctly rounded square root and division (C++, PoCL) the
// bodies agree exactly. OpenCL allows sqrt 3 ulp and division 2.5 ulp off: each term of an
// acceleration is then off by some 1e-6 relative, and the sum by 1e-6 of the sum of the terms'
// magnitudes, at most a total mass of ~1 over the softening squared (100) and some 1e-4 for
// these bodies; times dt, a step's velocity is off by 1e-6, and its position by 1e-8. The
// difference in positions changes the next forces by at most their gradient (total mass over
// the softening cubed, 1e3) times it, times dt, another 1e-5 relative of it per step, so the
// errors add up about linearly: allowed, per iteration, 2e-6 (velocities) and 2e-7 (positions)
// absolute plus 1e-6 relative, at least 1e-5 and 1e-6 (20x the bound's margin).
bool check(const lightning::Bodies& got, const lightning::Bodies& expected, int iterations) {
  const double velocity_tolerance = std::max(1e-5, 2e-6 * iterations);
  const double position_tolerance = std::max(1e-6, 2e-7 * iterations);
  const double relative = 1e-6 * iterations;
  double worst_position = 0, worst_velocity = 0;
  std::uint64_t outside = 0;
  std::uint64_t exact = 0;
  const auto compare = [&](const std::vector<float>& values, const std::vector<float>& reference,
                           double absolute, double& worst) {
    for (std::size_t i = 0; i < reference.size(); ++i) {
      const double error = std::fabs(static_cast<double>(values[i]) - reference[i]);
      worst = std::max(worst, error);
      outside += error <= absolute + relative * std::fabs(reference[i]) ? 0 : 1;  // NaN fails
      exact += values[i] == reference[i] ? 1 : 0;
    }
  };
  compare(got.pos, expected.pos, position_tolerance, worst_position);
  compare(got.vel, expected.vel, velocity_tolerance, worst_velocity);
  const bool passed = outside == 0;
  std::printf(
      "check: %s (%llu of %zu values outside %.2g (positions) or %.2g (velocities) plus %.2g "
      "relative of the sequential reference, the same f32 arithmetic in the same order: only an "
      "OpenCL sqrt or division not correctly rounded may differ; largest errors %.3g (positions), "
      "%.3g (velocities), %llu values equal)\n",
      passed ? "passed" : "FAILED", static_cast<unsigned long long>(outside),
      expected.pos.size() + expected.vel.size(), position_tolerance, velocity_tolerance, relative,
      worst_position, worst_velocity, static_cast<unsigned long long>(exact));
  return passed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("N-Body on distributed arrays (the lightning paper's benchmark)");
  app.add_option("--n", options.n, "bodies")->check(CLI::Range(1, 1 << 24));
  app.add_option("--iterations", options.iterations, "timed steps")->check(CLI::Range(1, 100000));
  app.add_option("--chunk", options.chunk,
                 "bodies per chunk of the velocities, rounded up to whole blocks")
      ->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "threads per block")->check(CLI::Range(1, 1024));
  lightning::add_run_options(
      app, options,
      {.seed = "seed of the random bodies",
       .distribution = "rows or round-robin (of the velocities and the work)"});
  CLI11_PARSE(app, argc, argv);
  options.chunk = lightning::whole_blocks(options.chunk, options.block);
  return lightning::exit_status("lightning_nbody", [&] {
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::nbody_kernels());
    const lightning::Bodies bodies = lightning::random_bodies(options.n, options.seed);
    Outcome outcome;
    const int status = node.program().run(
        [&](cluster::Driver& driver) { outcome = run_nbody(node, driver, options, bodies); });
    if (status != 0 || node.rank() != 0) return status;
    const double n = static_cast<double>(options.n);
    const double interactions = n * n * options.iterations;
    std::printf(
        "nbody: %llu bodies, %d iterations, velocities in chunks of %llu bodies (%s), positions "
        "replicated, %d rank(s) x %zu device(s)\n",
        static_cast<unsigned long long>(options.n), options.iterations,
        static_cast<unsigned long long>(options.chunk), options.distribution.c_str(), node.size(),
        node.devices().size());
    // 20 flops per interaction, as the CUDA samples count them.
    std::printf(
        "time %.4f s, throughput %.2f Minteractions/s (%.2f GFLOP/s), %llu superblocks, %llu box "
        "copies\n",
        outcome.timed.seconds, interactions / outcome.timed.seconds / 1e6,
        interactions * 20 / outcome.timed.seconds / 1e9,
        static_cast<unsigned long long>(outcome.stats.superblocks),
        static_cast<unsigned long long>(outcome.stats.box_copies));
    lightning::print_plan_counts(outcome.timed.counts);
    if (!options.check) return 0;
    double reference_seconds = 0;
    const lightning::Bodies expected = lightning::measure(reference_seconds, [&] {
      lightning::Bodies moved = bodies;
      lightning::nbody_reference(moved, options.iterations);
      return moved;
    });
    lightning::print_reference("one thread, f32", reference_seconds, outcome.timed.seconds);
    return check(outcome.bodies, expected, options.iterations) ? 0 : 1;
  });
}
