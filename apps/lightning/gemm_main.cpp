// lightning_gemm: the lightning paper's GEMM benchmark (§4.2) on distributed arrays — C = A B for
// random n x n f32 matrices, A, B and C cut into blocks of rows, each superblock a block of rows
// of C reading its rows of A and all of B (the planner assembles B from every rank's blocks); or,
// with --distribution tiles, B cut into blocks of columns and C into tiles, each superblock a tile
// of C reading its rows of A and its columns of B, so that B need not fit the device whole;
// throughput in GFLOP/s, and a check against the sequential reference in double; with OpenBLAS
// (where configure found it) the same product by cblas_sgemm for comparison. Runs under
// `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "lightning/gemm_data.hpp"
#include "lightning/gemm_kernels.hpp"
#include "lightning/program.hpp"
#include "lightning/run_options.hpp"
#include "strata/array/arrays.hpp"
#include "strata/base/error.hpp"

#ifdef STRATA_LIGHTNING_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace {

using namespace strata;
using array::Argument;
using array::Array;
using array::Distribution;
using array::Grid;
using array::WorkDistribution;

struct Options : lightning::RunOptions {
  std::uint64_t n = 2048;
  int iterations = 1;
  std::uint64_t chunk = 512;  // rows per chunk
  std::uint64_t columns = 0;  // columns per tile (tiles distribution); 0: the chunk's rows
  std::uint64_t block = 16;   // threads per block side
};

struct Outcome {
  lightning::Timed timed;
  std::vector<float> c;
  array::LaunchStats stats;
};

Outcome run_gemm(node::Node& node, cluster::Driver& driver, const Options& options,
                 const std::vector<float>& a_values, const std::vector<float>& b_values) {
  using device::ElementType;
  const array::ArrayKernel kernel = lightning::gemm_kernel();
  array::Arrays arrays(node, driver);
  const bool tiles = options.distribution == "tiles";
  // Blocks of `chunk` whole rows for A, B and C; round-robin deals them in turn. Tiles: B in
  // blocks of `columns` whole columns, C in tiles of `chunk` rows by `columns` columns.
  const Distribution rows = lightning::chunk_distribution(options, options.chunk);
  const Distribution b_chunks = tiles ? Distribution::column_blocks(options.columns) : rows;
  const Distribution c_chunks =
      tiles ? Distribution::tiles({options.chunk, options.columns}) : rows;
  // A superblock is `chunk` rows of C (whole rows of blocks when --chunk is a multiple of
  // --block), or a tile of C: it writes its own chunk of C, reads its own chunk of A, and all of
  // B or the tile's columns of B.
  const std::uint64_t block_rows = std::max<std::uint64_t>(1, options.chunk / options.block);
  const std::uint64_t block_cols = tiles
                                       ? std::max<std::uint64_t>(1, options.columns / options.block)
                                       : (options.n + options.block - 1) / options.block;
  const WorkDistribution work = options.round_robin()
                                    ? WorkDistribution::round_robin({block_cols, block_rows})
                                    : WorkDistribution::tiled({block_cols, block_rows});
  const std::vector<std::uint64_t> shape{options.n, options.n};
  Array a = arrays.from_host<float>("A", shape, rows, a_values);
  Array b = arrays.from_host<float>("B", shape, b_chunks, b_values);
  Array c = arrays.create("C", ElementType::f32, shape, c_chunks);
  const Grid grid{{options.n, options.n}, {options.block, options.block}};
  const auto multiply = [&] {
    arrays.launch(kernel, grid, work,
                  {Argument::value(static_cast<std::int32_t>(options.n)), a, b, c});
  };
  // One launch untimed compiles every superblock's kernel and assembles B where it is read.
  multiply();
  Outcome outcome;
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (int it = 0; it < options.iterations; ++it)
      multiply();
  });
  outcome.c = arrays.read_as<float>(c);
  outcome.stats = arrays.stats();
  for (Array* gone : {&a, &b, &c})
    arrays.destroy(*gone);
  return outcome;
}

// Each C[i, j] within gamma_(n+1) * |A[i, :]| |B[:, j]| of the double reference, |.| the
// Euclidean norms: an f32 dot product of length n, summed in any order (blocked, fused or not),
// is off by at most gamma_n = n u / (1 - n u), u = 2^-24, times sum_k |A[i, k]| |B[k, j]|, which
// Cauchy-Schwarz bounds by the norms; the final rounding to f32 adds u |C[i, j]|, below the same
// product (the reference's own error in double is some 1e-16 of it). With entries in [-1, 1] the
// typical error is about sqrt(n) u of it, far inside.
bool check(const std::vector<float>& got, const std::vector<double>& expected,
           const std::vector<double>& a_norms, const std::vector<double>& b_norms,
           std::uint64_t n) {
  const double u = std::ldexp(1.0, -24);
  const double terms = static_cast<double>(n + 1);
  const double gamma = terms * u / (1 - terms * u);
  double worst = 0;  // the largest error as a fraction of its tolerance
  double worst_absolute = 0;
  std::uint64_t outside = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      const double error = std::fabs(static_cast<double>(got[i * n + j]) - expected[i * n + j]);
      const double tolerance = gamma * a_norms[i] * b_norms[j];
      worst = std::max(worst, error / tolerance);
      worst_absolute = std::max(worst_absolute, error);
      outside += error <= tolerance ? 0 : 1;  // a NaN fails too
    }
  const bool passed = outside == 0 && std::isfinite(worst);
  std::printf(
      "check: %s (%llu of %llu entries further than (n+1) u / (1 - (n+1) u) = %.3g times "
      "|A[i, :]| |B[:, j]| from the double reference: the worst-case rounding of an f32 dot "
      "product of length n; largest error %.3g, %.2g of its tolerance)\n",
      passed ? "passed" : "FAILED", static_cast<unsigned long long>(outside),
      static_cast<unsigned long long>(n * n), gamma, worst_absolute, worst);
  return passed;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("GEMM on distributed arrays (the lightning paper's benchmark)");
  app.add_option("--n", options.n, "rows and columns of A, B and C")->check(CLI::Range(1, 1 << 15));
  app.add_option("--iterations", options.iterations, "timed launches computing C = A B")
      ->check(CLI::Range(1, 1000));
  app.add_option("--chunk", options.chunk, "rows per chunk, rounded up to whole blocks")
      ->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "threads per block side (block x block threads)")
      ->check(CLI::Range(1, 32));
  app.add_option("--columns", options.columns,
                 "columns per tile with --distribution tiles, rounded up to whole blocks "
                 "(default: --chunk)")
      ->check(CLI::PositiveNumber);
  lightning::add_run_options(
      app, options,
      {.seed = "seed of the random matrices",
       .distribution =
           "rows, round-robin (row blocks dealt in turn) or tiles (B in blocks of columns, "
           "C in tiles: B need not fit a device whole)",
       .distributions = {"rows", "round-robin", "tiles"},
       .no_check = "skip the sequential reference and OpenBLAS's product (benchmark runs)"});
  CLI11_PARSE(app, argc, argv);
  options.chunk = lightning::whole_blocks(options.chunk, options.block);
  options.columns = lightning::whole_blocks(options.columns == 0 ? options.chunk : options.columns,
                                            options.block);
  return lightning::exit_status("lightning_gemm", [&] {
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::gemm_kernels());
    const std::uint64_t n = options.n;
    const std::vector<float> a = lightning::random_matrix(n, options.seed);
    const std::vector<float> b = lightning::random_matrix(n, options.seed + 1);
    Outcome outcome;
    const int status = node.program().run(
        [&](cluster::Driver& driver) { outcome = run_gemm(node, driver, options, a, b); });
    if (status != 0 || node.rank() != 0) return status;
    const double flops =
        2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    std::printf(
        "gemm: %llu x %llu f32 matrices, %d iteration(s), chunks of %llu rows%s (%s), blocks of "
        "%llu x %llu, %d rank(s) x %zu device(s)\n",
        static_cast<unsigned long long>(n), static_cast<unsigned long long>(n), options.iterations,
        static_cast<unsigned long long>(options.chunk),
        options.distribution == "tiles" ? fmt::format(" by {} columns", options.columns).c_str()
                                        : "",
        options.distribution.c_str(), static_cast<unsigned long long>(options.block),
        static_cast<unsigned long long>(options.block), node.size(), node.devices().size());
    std::printf(
        "time %.4f s, throughput %.2f GFLOP/s, %llu superblocks, %llu assembled and %llu "
        "reused regions, %llu box copies\n",
        outcome.timed.seconds, flops * options.iterations / outcome.timed.seconds / 1e9,
        static_cast<unsigned long long>(outcome.stats.superblocks),
        static_cast<unsigned long long>(outcome.stats.assembled_regions),
        static_cast<unsigned long long>(outcome.stats.reused_regions),
        static_cast<unsigned long long>(outcome.stats.box_copies));
    lightning::print_plan_counts(outcome.timed.counts);
    if (!options.check) return 0;
    double round_seconds = 0;
    const std::vector<double> expected =
        lightning::measure(round_seconds, [&] { return lightning::gemm_reference(a, b, n); });
    const double reference_seconds = round_seconds * options.iterations;
    std::printf(
        "sequential reference (one thread, blocked, double): %.4f s a product, %.2f GFLOP/s, "
        "%.2fx the run's time\n",
        round_seconds, flops / round_seconds / 1e9, reference_seconds / outcome.timed.seconds);
#ifdef STRATA_LIGHTNING_HAVE_OPENBLAS
    {
      std::vector<float> c_blas(n * n);
      const auto sgemm = [&] {
        const auto size = static_cast<blasint>(n);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, size, size, size, 1.0f, a.data(),
                    size, b.data(), size, 0.0f, c_blas.data(), size);
      };
      sgemm();  // untimed: starts OpenBLAS's threads
      const auto blas_start = std::chrono::steady_clock::now();
      for (int it = 0; it < options.iterations; ++it)
        sgemm();
      const double blas_seconds = lightning::seconds_since(blas_start);
      std::printf(
          "OpenBLAS cblas_sgemm (%d thread(s)): %.4f s, %.2f GFLOP/s; Strata / OpenBLAS time "
          "%.2f\n",
          openblas_get_num_threads(), blas_seconds, flops * options.iterations / blas_seconds / 1e9,
          outcome.timed.seconds / blas_seconds);
    }
#else
    std::printf("OpenBLAS: not built in (configure did not find it: install libopenblas-dev)\n");
#endif
    return check(outcome.c, expected, lightning::row_norms(a, n), lightning::column_norms(b, n), n)
               ? 0
               : 1;
  });
}
