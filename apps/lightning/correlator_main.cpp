// lightning_correlator: the lightning paper's Correlator benchmark (§4.2, after van Nieuwpoort
// and Romein) on distributed arrays — the complex samples of 256 antennas in n frequency
// channels, cut into chunks of channels over the devices of every rank, `iterations` launches
// correlating every pair of antennas (autocorrelations included) in every channel, throughput,
// and a check against the sequential reference in double. Runs under `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "lightning/correlator_data.hpp"
#include "lightning/correlator_kernels.hpp"
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
  std::uint64_t n = 256;  // channels
  std::uint64_t antennas = 256;
  std::uint64_t samples = 128;  // time samples per channel and antenna
  int iterations = 3;
  std::uint64_t chunk = 64;  // channels per chunk (the paper's)
  std::uint64_t block = 16;  // the side of a square block of antenna pairs
};

struct Outcome {
  lightning::Timed timed;
  std::vector<float> visibilities;
  array::LaunchStats stats;
};

Outcome run_correlator(node::Node& node, cluster::Driver& driver, const Options& options,
                       const std::vector<float>& samples) {
  using device::ElementType;
  const array::ArrayKernel kernel = lightning::correlator_kernel();
  array::Arrays arrays(node, driver);
  const Distribution cut = lightning::chunk_distribution(options, options.chunk);
  // A superblock is `chunk` channels of the whole antenna grid (the kernel's annotation writes
  // all of a channel's baselines), so with the same cut it uses its own chunks directly.
  const std::uint64_t side = (options.antennas + options.block - 1) / options.block;
  const WorkDistribution work = options.round_robin()
                                    ? WorkDistribution::round_robin({side, side, options.chunk})
                                    : WorkDistribution::tiled({side, side, options.chunk});
  const std::uint64_t baselines = lightning::correlator_baselines(options.antennas);
  Array x = arrays.from_host<float>("x", {options.n, options.antennas, 2 * options.samples}, cut,
                                    samples);
  Array vis = arrays.create("vis", ElementType::f32, {options.n, baselines, 2}, cut);
  const Grid grid{{options.antennas, options.antennas, options.n},
                  {options.block, options.block, 1}};
  const auto correlate = [&] {
    arrays.launch(kernel, grid, work,
                  {Argument::value(static_cast<std::int32_t>(options.n)),
                   Argument::value(static_cast<std::int32_t>(options.antennas)),
                   Argument::value(static_cast<std::int32_t>(options.samples)), x, vis});
  };
  // One launch untimed compiles every superblock's kernel (and brings the samples in place).
  correlate();
  Outcome outcome;
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (int it = 0; it < options.iterations; ++it)
      correlate();
  });
  // Read back a chunk of channels at a time: the whole of the visibilities need not fit a device.
  outcome.visibilities.reserve(options.n * baselines * 2);
  for (std::uint64_t c = 0; c < options.n; c += options.chunk) {
    const std::array<std::uint64_t, 3> lo{c, 0, 0};
    const std::array<std::uint64_t, 3> hi{std::min(options.n, c + options.chunk), baselines, 2};
    const std::vector<float> part = arrays.read_as<float>(vis, array::Region::of(lo, hi));
    outcome.visibilities.insert(outcome.visibilities.end(), part.begin(), part.end());
  }
  outcome.stats = arrays.stats();
  arrays.destroy(x);
  arrays.destroy(vis);
  return outcome;
}

// Each part of each visibility within gamma_2T sqrt(P_a P_b) of the double reference, P_a the
// autocorrelation sum |x_a(t)|^2: a part is a dot product of length 2T in f32, whose every term
// passes through at most T + 2 <= 2T roundings (a product, the pair's sum, the running sum; a
// fused multiply-add only removes some), so its error is at most gamma_2T = 2Tu / (1 - 2Tu),
// u = 2^-24, times sum_t (|ar br| + |ai bi|) <= sum_t |x_a(t)| |x_b(t)| <= sqrt(P_a P_b)
// (Cauchy-Schwarz, twice). The reference's own error (products exact in double, sums 2^-53) is
// some 2^-29 of that.
bool check(const Outcome& got, const std::vector<double>& expected,
           const lightning::CorrelatorShape& shape) {
  constexpr double u = 0x1p-24;
  const double roundings = 2.0 * static_cast<double>(shape.samples);
  const double gamma = roundings * u / (1 - roundings * u);
  const std::uint64_t baselines = lightning::correlator_baselines(shape.antennas);
  double worst = 0;  // the largest error as a fraction of its tolerance
  double worst_absolute = 0;
  std::uint64_t outside = 0;
  for (std::uint64_t c = 0; c < shape.channels; ++c) {
    const double* channel = expected.data() + c * baselines * 2;
    const auto power = [&](std::uint64_t a) { return channel[(a * (a + 1) / 2 + a) * 2]; };
    for (std::uint64_t a = 0; a < shape.antennas; ++a) {
      for (std::uint64_t b = 0; b <= a; ++b) {
        const std::uint64_t at = (c * baselines + a * (a + 1) / 2 + b) * 2;
        const double tolerance = gamma * std::sqrt(power(a) * power(b));
        for (int part = 0; part < 2; ++part) {
          const double error =
              std::fabs(static_cast<double>(got.visibilities[at + part]) - expected[at + part]);
          worst = std::max(worst, error / tolerance);
          worst_absolute = std::max(worst_absolute, error);
          outside += error <= tolerance ? 0 : 1;  // a NaN fails too
        }
      }
    }
  }
  const bool passed = outside == 0 && std::isfinite(worst);
  std::printf(
      "check: %s (%llu of %zu visibility parts outside gamma_%.0f sqrt(P_a P_b) of the double "
      "reference, the bound of an f32 sum of %llu complex products; largest error %.3g, %.2g of "
      "its tolerance)\n",
      passed ? "passed" : "FAILED", static_cast<unsigned long long>(outside), expected.size(),
      roundings, static_cast<unsigned long long>(shape.samples), worst_absolute, worst);
  return passed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("The Correlator on distributed arrays (the lightning paper's benchmark)");
  app.add_option("--n", options.n, "frequency channels")->check(CLI::Range(1, 1 << 24));
  app.add_option("--antennas", options.antennas, "antennas (the paper: 256)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--samples", options.samples, "complex time samples per channel and antenna")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--iterations", options.iterations, "timed launches correlating every channel")
      ->check(CLI::Range(1, 1000));
  app.add_option("--chunk", options.chunk, "channels per chunk (the paper: 64)")
      ->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "the side of a square block of antenna pairs")
      ->check(CLI::Range(1, 1024));
  lightning::add_run_options(app, options, {.seed = "seed of the random samples"});
  CLI11_PARSE(app, argc, argv);
  return lightning::exit_status("lightning_correlator", [&] {
    if (options.block * options.block > 1024) {
      throw Error(fmt::format(
          "--block {0} makes blocks of {0} x {0} = {1} antenna pairs (threads); at most 1024 "
          "(--block 32)",
          options.block, options.block * options.block));
    }
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::correlator_kernels());
    const lightning::CorrelatorShape shape{options.n, options.antennas, options.samples};
    const std::vector<float> samples = lightning::random_antenna_samples(shape, options.seed);
    Outcome outcome;
    const int status = node.program().run(
        [&](cluster::Driver& driver) { outcome = run_correlator(node, driver, options, samples); });
    if (status != 0 || node.rank() != 0) return status;
    const double channels = static_cast<double>(options.n) * options.iterations;
    const double baselines = static_cast<double>(lightning::correlator_baselines(options.antennas));
    // 8 flops a complex multiply-add; the samples and visibilities, 8 bytes a complex value.
    const double flops = channels * baselines * static_cast<double>(options.samples) * 8;
    const double bytes_per_channel =
        8.0 * (static_cast<double>(options.antennas * options.samples) + baselines);
    std::printf(
        "correlator: %llu channels x %llu antennas x %llu samples (%.0f baselines, %.1f MiB), %d "
        "iterations, chunks of %llu channels (%s), %d rank(s) x %zu device(s)\n",
        static_cast<unsigned long long>(options.n),
        static_cast<unsigned long long>(options.antennas),
        static_cast<unsigned long long>(options.samples), baselines,
        bytes_per_channel * static_cast<double>(options.n) / (1 << 20), options.iterations,
        static_cast<unsigned long long>(options.chunk), options.distribution.c_str(), node.size(),
        node.devices().size());
    std::printf("time %.4f s, throughput %.2f channels/s (%.2f GFLOP/s), %llu superblocks\n",
                outcome.timed.seconds, channels / outcome.timed.seconds,
                flops / outcome.timed.seconds / 1e9,
                static_cast<unsigned long long>(outcome.stats.superblocks));
    lightning::print_plan_counts(outcome.timed.counts);
    if (!options.check) return 0;
    double round_seconds = 0;
    const std::vector<double> expected = lightning::measure(
        round_seconds, [&] { return lightning::correlator_reference(shape, samples); });
    lightning::print_reference_per_round("one thread, double", "round", round_seconds,
                                         options.iterations, outcome.timed.seconds);
    return check(outcome, expected, shape) ? 0 : 1;
  });
}
