// lightning_spmv: the lightning paper's SpMV benchmark (§4.2, after SHOC) on distributed arrays —
// a random sparse n x n matrix in ELL format (0.1 % dense) cut by rows, the vector replicated on
// every device, `iterations` chained products y = A x ping-ponging between two vectors (each
// launch's result goes to every replica: the paper's broadcast), throughput in GFLOP/s, and a
// check against the sequential reference in double. Runs under `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <utility>

#include "lightning/program.hpp"
#include "lightning/run_options.hpp"
#include "lightning/spmv_data.hpp"
#include "lightning/spmv_kernels.hpp"
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
  std::uint64_t n = 200'000;  // rows and columns
  int iterations = 10;
  std::uint64_t chunk = 50'000;  // rows per chunk
  std::uint64_t block = 256;
};

struct Outcome {
  lightning::Timed timed;
  std::vector<float> x;
  array::LaunchStats stats;
};

Outcome run_spmv(node::Node& node, cluster::Driver& driver, const Options& options,
                 const lightning::EllMatrix& matrix, const std::vector<float>& x0) {
  using device::ElementType;
  const array::ArrayKernel kernel = lightning::spmv_kernel();
  array::Arrays arrays(node, driver);
  const Distribution rows = lightning::chunk_distribution(options, options.chunk);
  const WorkDistribution work = lightning::chunk_work(options, options.chunk, options.block);
  const std::uint64_t n = matrix.n;
  const std::vector<std::uint64_t> shape{n, matrix.max_nnz};
  Array values = arrays.from_host<float>("values", shape, rows, matrix.values);
  Array columns = arrays.from_host<std::int32_t>("columns", shape, rows, matrix.columns);
  Array x = arrays.from_host<float>("x", {n}, Distribution::replicated(), x0);
  Array y = arrays.create("y", ElementType::f32, {n}, Distribution::replicated());
  const auto multiply = [&] {
    arrays.launch(
        kernel, Grid{{n}, {options.block}}, work,
        {Argument::value(static_cast<std::int32_t>(n)),
         Argument::value(static_cast<std::int32_t>(matrix.max_nnz)), values, columns, x, y});
    std::swap(x, y);
  };
  // Two launches untimed compile every superblock's kernel for both directions of the
  // ping-pong; the starting vector then goes back.
  multiply();
  multiply();
  arrays.write(x, std::as_bytes(std::span<const float>(x0)));
  Outcome outcome;
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (int it = 0; it < options.iterations; ++it)
      multiply();
  });
  outcome.x = arrays.read_as<float>(x);
  outcome.stats = arrays.stats();
  for (Array* gone : {&values, &columns, &x, &y})
    arrays.destroy(*gone);
  return outcome;
}

// Every entry within (1 + gamma_m)^k - 1 of the double reference's, relative, with m = max_nnz,
// k the iterations and gamma_m = m u / (1 - m u), u = 2^-24: an f32 row of m products summed in
// any order is (A + dA) x with |dA| <= gamma_m |A|, so k chained products are off by at most
// ((1 + gamma_m)^k - 1) |A|^k |x_0|, which is the reference itself since A and x_0 are positive
// (no cancellation). 1e-12 more covers the reference's own rounding in double.
bool check(const std::vector<float>& got, const std::vector<double>& expected,
           std::uint64_t max_nnz, int iterations) {
  const double u = std::ldexp(1.0, -24);
  const double terms = static_cast<double>(max_nnz);
  const double gamma = terms * u / (1 - terms * u);
  const double relative = std::pow(1 + gamma, iterations) - 1 + 1e-12;
  double worst = 0;  // the largest relative error
  std::uint64_t outside = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double error = std::fabs(static_cast<double>(got[i]) - expected[i]);
    const double tolerance = relative * std::fabs(expected[i]);
    worst = std::max(worst, error / std::fabs(expected[i]));
    outside += error <= tolerance ? 0 : 1;  // a NaN fails too
  }
  const bool passed = outside == 0 && std::isfinite(worst);
  std::printf(
      "check: %s (%llu of %zu entries further than %.3g relative from the double reference: "
      "(1 + gamma_max_nnz)^iterations - 1, the worst-case rounding of %d chained f32 products "
      "of positive rows of %llu entries; largest relative error %.3g)\n",
      passed ? "passed" : "FAILED", static_cast<unsigned long long>(outside), expected.size(),
      relative, iterations, static_cast<unsigned long long>(max_nnz), worst);
  return passed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("SpMV on distributed arrays (the lightning paper's benchmark, after SHOC)");
  app.add_option("--n", options.n, "rows and columns of the sparse matrix")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--iterations", options.iterations, "chained products y = A x")
      ->check(CLI::Range(1, 1000));
  app.add_option("--chunk", options.chunk, "rows per chunk, rounded up to whole blocks")
      ->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "threads (rows) per block")->check(CLI::Range(1, 1024));
  lightning::add_run_options(app, options,
                             {.seed = "seed of the random matrix and vector",
                              .distribution = "rows or round-robin (row blocks dealt in turn)"});
  CLI11_PARSE(app, argc, argv);
  options.chunk = lightning::whole_blocks(options.chunk, options.block);
  return lightning::exit_status("lightning_spmv", [&] {
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::spmv_kernels());
    // 0.1 % of each row's entries (at least one), as the paper's matrices.
    const std::uint64_t max_nnz = (options.n + 999) / 1000;
    const lightning::EllMatrix matrix =
        lightning::random_ell_matrix(options.n, max_nnz, options.seed);
    const std::vector<float> x0 = lightning::random_vector(options.n, options.seed + 1);
    Outcome outcome;
    const int status = node.program().run(
        [&](cluster::Driver& driver) { outcome = run_spmv(node, driver, options, matrix, x0); });
    if (status != 0 || node.rank() != 0) return status;
    const double nonzeros = static_cast<double>(options.n) * static_cast<double>(max_nnz);
    const double flops = 2 * nonzeros * options.iterations;
    std::printf(
        "spmv: %llu x %llu ELL matrix, %llu entries a row (%.0f in all), %d iterations, chunks of "
        "%llu rows (%s), vector replicated, %d rank(s) x %zu device(s)\n",
        static_cast<unsigned long long>(options.n), static_cast<unsigned long long>(options.n),
        static_cast<unsigned long long>(max_nnz), nonzeros, options.iterations,
        static_cast<unsigned long long>(options.chunk), options.distribution.c_str(), node.size(),
        node.devices().size());
    // Each entry reads a value, a column and an element of x.
    std::printf(
        "time %.4f s, throughput %.3f GFLOP/s (%.3f GB/s of entries), %llu superblocks, %llu box "
        "copies\n",
        outcome.timed.seconds, flops / outcome.timed.seconds / 1e9,
        nonzeros * 12 * options.iterations / outcome.timed.seconds / 1e9,
        static_cast<unsigned long long>(outcome.stats.superblocks),
        static_cast<unsigned long long>(outcome.stats.box_copies));
    lightning::print_plan_counts(outcome.timed.counts);
    if (!options.check) return 0;
    double reference_seconds = 0;
    const std::vector<double> expected = lightning::measure(reference_seconds, [&] {
      return lightning::spmv_reference(matrix, x0, options.iterations);
    });
    lightning::print_reference("one thread, double", reference_seconds, outcome.timed.seconds);
    return check(outcome.x, expected, max_nnz, options.iterations) ? 0 : 1;
  });
}
