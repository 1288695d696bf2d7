// lightning_black_scholes: the lightning paper's Black-Scholes benchmark (§4.2) on distributed
// arrays — random European options, `iterations` launches pricing each option's call and put on
// the devices of every rank, throughput, and a check against the sequential reference in double.
// Runs under `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "lightning/black_scholes_data.hpp"
#include "lightning/black_scholes_kernels.hpp"
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
  std::uint64_t n = 10'000'000;
  int iterations = 10;
  std::uint64_t chunk = 2'500'000;  // options per chunk
  std::uint64_t block = 256;
};

struct Outcome {
  lightning::Timed timed;
  std::vector<float> call, put;
  array::LaunchStats stats;
};

Outcome run_black_scholes(node::Node& node, cluster::Driver& driver, const Options& options,
                          const lightning::EuropeanOptions& data) {
  using device::ElementType;
  const array::ArrayKernel kernel = lightning::black_scholes_kernel();
  array::Arrays arrays(node, driver);
  const Distribution cut = lightning::chunk_distribution(options, options.chunk);
  const WorkDistribution work = lightning::chunk_work(options, options.chunk, options.block);
  const std::uint64_t n = options.n;
  Array spot = arrays.from_host<float>("S", {n}, cut, data.spot);
  Array strike = arrays.from_host<float>("X", {n}, cut, data.strike);
  Array time = arrays.from_host<float>("T", {n}, cut, data.time);
  Array rate = arrays.from_host<float>("R", {n}, cut, data.rate);
  Array volatility = arrays.from_host<float>("V", {n}, cut, data.volatility);
  Array call = arrays.create("call", ElementType::f32, {n}, cut);
  Array put = arrays.create("put", ElementType::f32, {n}, cut);
  const auto n32 = static_cast<std::int32_t>(n);
  const auto price = [&] {
    arrays.launch(kernel, Grid{{n}, {options.block}}, work,
                  {Argument::value(n32), spot, strike, time, rate, volatility, call, put});
  };
  // One launch untimed compiles every superblock's kernel (and brings the inputs in place).
  price();
  Outcome outcome;
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (int it = 0; it < options.iterations; ++it)
      price();
  });
  outcome.call = arrays.read_as<float>(call);
  outcome.put = arrays.read_as<float>(put);
  outcome.stats = arrays.stats();
  for (Array* gone : {&spot, &strike, &time, &rate, &volatility, &call, &put})
    arrays.destroy(*gone);
  return outcome;
}

// Every price within 1e-4 of the reference's magnitude plus 1e-4 of the option's spot: the
// kernels compute in f32 (about 6e-8 relative per operation; a put is a difference of terms up
// to the strike, at most 20 spots here, so its rounding is some 1e-5 of the spot) with the
// polynomial normal distribution (absolute error below 7.5e-8, times at most 100 of strike),
// the reference in double with std::erfc.
bool check(const Outcome& got, const lightning::Prices& expected,
           const lightning::EuropeanOptions& data) {
  constexpr double relative = 1e-4;
  constexpr double of_spot = 1e-4;
  double worst = 0;  // the largest error as a fraction of its tolerance
  double worst_absolute = 0;
  std::uint64_t outside = 0;
  // Where the failures lie: the first and last option outside, and the first's values.
  std::uint64_t first_outside = 0, last_outside = 0;
  float first_got = 0;
  double first_expected = 0;
  const auto compare = [&](std::size_t i, float value, double reference, double spot) {
    const double error = std::fabs(static_cast<double>(value) - reference);
    const double tolerance = relative * std::fabs(reference) + of_spot * spot;
    worst = std::max(worst, error / tolerance);
    worst_absolute = std::max(worst_absolute, error);
    if (error <= tolerance) return;  // a NaN fails
    if (outside++ == 0) {
      first_outside = i;
      first_got = value;
      first_expected = reference;
    }
    last_outside = i;
  };
  for (std::size_t i = 0; i < expected.call.size(); ++i) {
    const double spot = data.spot[i];
    compare(i, got.call[i], expected.call[i], spot);
    compare(i, got.put[i], expected.put[i], spot);
  }
  const bool passed = outside == 0 && std::isfinite(worst);
  std::printf(
      "check: %s (%llu of %zu prices outside 1e-4 relative + 1e-4 x spot of the double "
      "reference: f32 kernels with the polynomial normal distribution against double and erfc; "
      "largest error %.3g, %.2g of its tolerance)\n",
      passed ? "passed" : "FAILED", static_cast<unsigned long long>(outside),
      expected.call.size() * 2, worst_absolute, worst);
  if (outside != 0) {
    std::printf("outside: options %llu to %llu; option %llu priced %.6g, expected %.6g\n",
                static_cast<unsigned long long>(first_outside),
                static_cast<unsigned long long>(last_outside),
                static_cast<unsigned long long>(first_outside), first_got, first_expected);
  }
  return passed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("Black-Scholes on distributed arrays (the lightning paper's benchmark)");
  app.add_option("--n", options.n, "options (a call and a put each)")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--iterations", options.iterations, "timed launches pricing every option")
      ->check(CLI::Range(1, 1000));
  app.add_option("--chunk", options.chunk, "options per chunk, rounded up to whole blocks")
      ->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "threads per block")->check(CLI::Range(1, 1024));
  lightning::add_run_options(app, options, {.seed = "seed of the random options"});
  CLI11_PARSE(app, argc, argv);
  options.chunk = lightning::whole_blocks(options.chunk, options.block);
  return lightning::exit_status("lightning_black_scholes", [&] {
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::black_scholes_kernels());
    const lightning::EuropeanOptions data = lightning::random_options(options.n, options.seed);
    Outcome outcome;
    const int status = node.program().run(
        [&](cluster::Driver& driver) { outcome = run_black_scholes(node, driver, options, data); });
    if (status != 0 || node.rank() != 0) return status;
    const double priced = static_cast<double>(options.n) * options.iterations;
    std::printf(
        "black_scholes: %llu options, %d iterations, chunks of %llu options (%s), %d rank(s) x "
        "%zu device(s)\n",
        static_cast<unsigned long long>(options.n), options.iterations,
        static_cast<unsigned long long>(options.chunk), options.distribution.c_str(), node.size(),
        node.devices().size());
    // Each option reads 5 floats and writes 2.
    std::printf("time %.4f s, throughput %.2f Moptions/s (%.3f GB/s of arrays), %llu superblocks\n",
                outcome.timed.seconds, priced / outcome.timed.seconds / 1e6,
                priced * 28 / outcome.timed.seconds / 1e9,
                static_cast<unsigned long long>(outcome.stats.superblocks));
    lightning::print_plan_counts(outcome.timed.counts);
    if (!options.check) return 0;
    double round_seconds = 0;
    const lightning::Prices expected =
        lightning::measure(round_seconds, [&] { return lightning::black_scholes_reference(data); });
    lightning::print_reference_per_round("one thread, double", "round", round_seconds,
                                         options.iterations, outcome.timed.seconds);
    return check(outcome, expected, data) ? 0 : 1;
  });
}
