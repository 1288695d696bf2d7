// lightning_coclustering: the lightning paper's full application (§4.6) — CGC's co-clustering of
// a matrix's rows and columns on distributed arrays, three reductions per iteration — on planted
// co-clusters or a user's .npy matrix; writes the row and column labels as CSV and checks them
// against the sequential reference. Runs under `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <span>
#include <string>

#include "lightning/coclustering_data.hpp"
#include "lightning/coclustering_kernels.hpp"
#include "lightning/program.hpp"
#include "lightning/run_options.hpp"
#include "strata/array/arrays.hpp"
#include "strata/base/error.hpp"
#include "strata/store/npy.hpp"

namespace {

using namespace strata;
using array::Argument;
using array::Array;
using array::Distribution;
using array::Grid;
using array::WorkDistribution;

struct Options : lightning::RunOptions {
  std::uint64_t rows = 2000;
  std::uint64_t cols = 1000;
  int k = 4;
  int l = 3;
  int iterations = 10;
  double epsilon = 1e-8;
  std::uint64_t chunk = 500;  // rows per chunk
  std::uint64_t block = 16;   // threads per side of a block
  std::string input;          // a .npy matrix instead of planted co-clusters
  std::string labels;         // PREFIX: PREFIX.rows.csv, PREFIX.cols.csv
  std::string save_matrix;
};

struct Outcome {
  lightning::Timed timed;
  lightning::CoclusteringResult result;
};

Outcome run_coclustering(node::Node& node, cluster::Driver& driver, const Options& options,
                         const std::vector<float>& values) {
  using device::ElementType;
  const std::uint64_t m = options.rows;
  const std::uint64_t n = options.cols;
  const auto k = static_cast<std::uint64_t>(options.k);
  const auto l = static_cast<std::uint64_t>(options.l);
  const std::vector<array::ArrayKernel> kernels = lightning::coclustering_kernels();
  array::Arrays arrays(node, driver);
  // Row blocks of the matrix; the label and per-row arrays cut the same way.
  const Distribution cut = lightning::chunk_distribution(options, options.chunk);
  const Distribution columns = lightning::chunk_distribution(options, options.chunk);
  const std::uint64_t blocks = std::max<std::uint64_t>(1, options.chunk / options.block);
  // Matrix launches (x: columns, y: rows): superblocks of whole rows, `blocks` blocks of them.
  const std::uint64_t across = (n + options.block - 1) / options.block;
  const WorkDistribution by_rows = options.round_robin()
                                       ? WorkDistribution::round_robin({across, blocks})
                                       : WorkDistribution::tiled({across, blocks});
  const WorkDistribution by_index = lightning::chunk_work(options, options.chunk, options.block);
  const lightning::CoclusteringStart first =
      lightning::coclustering_start(values, m, n, options.k, options.l);
  const std::vector<std::int32_t>& row_init = first.rows;
  const std::vector<std::int32_t>& col_init = first.cols;
  const auto gavg = static_cast<float>(first.mean);
  const auto eps = static_cast<float>(options.epsilon);
  Array z = arrays.from_host<float>("Z", {m, n}, cut, values);
  Array rows = arrays.from_host<std::int32_t>("rows", {m}, cut, row_init);
  Array cols = arrays.from_host<std::int32_t>("cols", {n}, columns, col_init);
  const Distribution everywhere = Distribution::replicated();
  Array sums = arrays.create("sums", ElementType::f32, {k, l}, everywhere);
  Array counts = arrays.create("counts", ElementType::i32, {k, l}, everywhere);
  Array row_sums = arrays.create("row_sums", ElementType::f32, {m, l}, cut);
  Array col_sums = arrays.create("col_sums", ElementType::f32, {n, k}, columns);
  Array row_counts = arrays.create("row_counts", ElementType::i32, {k}, everywhere);
  Array error = arrays.create("error", ElementType::f32, {1}, everywhere);
  arrays.synchronize();
  const auto m32 = Argument::value(static_cast<std::int32_t>(m));
  const auto n32 = Argument::value(static_cast<std::int32_t>(n));
  const auto k32 = Argument::value(static_cast<std::int32_t>(k));
  const auto l32 = Argument::value(static_cast<std::int32_t>(l));
  const Grid matrix_grid{{n, m}, {options.block, options.block}};
  const auto iterate = [&] {
    arrays.launch(kernels[0], matrix_grid, by_rows, {m32, n32, l32, z, rows, cols, sums, counts});
    arrays.launch(kernels[1], matrix_grid, by_rows, {m32, n32, l32, z, cols, row_sums});
    arrays.launch(
        kernels[2], Grid{{m}, {options.block}}, by_index,
        {m32, k32, l32, Argument::value(gavg), Argument::value(eps), row_sums, sums, counts, rows});
    arrays.launch(kernels[3], matrix_grid, by_rows, {m32, n32, k32, z, rows, col_sums, row_counts});
    arrays.launch(kernels[4], Grid{{n}, {options.block}}, by_index,
                  {n32, k32, l32, Argument::value(gavg), Argument::value(eps), col_sums, sums,
                   counts, row_counts, cols, error});
  };
  // One iteration untimed compiles every superblock's kernels; the labels then start afresh.
  iterate();
  arrays.write(rows, std::as_bytes(std::span<const std::int32_t>(row_init)));
  arrays.write(cols, std::as_bytes(std::span<const std::int32_t>(col_init)));
  Outcome outcome;
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (int it = 0; it < options.iterations; ++it)
      iterate();
    outcome.result.rows = arrays.read_as<std::int32_t>(rows);
    outcome.result.cols = arrays.read_as<std::int32_t>(cols);
    outcome.result.error = arrays.read_as<float>(error)[0];
  });
  for (Array* gone : {&z, &rows, &cols, &sums, &counts, &row_sums, &col_sums, &row_counts, &error})
    arrays.destroy(*gone);
  return outcome;
}

void write_labels(const std::string& path, const char* what,
                  const std::vector<std::int32_t>& labels) {
  std::ofstream out(path + ".partial");
  out << what << ",cluster\n";
  for (std::size_t i = 0; i < labels.size(); ++i)
    out << i << ',' << labels[i] << '\n';
  out.close();
  if (!out) throw Error("writing the labels to '" + path + "' failed");
  std::rename((path + ".partial").c_str(), path.c_str());
}

std::uint64_t agreeing(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  std::uint64_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    same += a[i] == b[i] ? 1 : 0;
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("CGC co-clustering on distributed arrays (the lightning paper's application)");
  app.add_option("--rows", options.rows, "rows of the planted matrix")->check(CLI::PositiveNumber);
  app.add_option("--cols", options.cols, "columns of the planted matrix")
      ->check(CLI::PositiveNumber);
  app.add_option("--input", options.input, "co-cluster this 2-D .npy matrix of f32 instead");
  app.add_option("--k", options.k, "row clusters")->check(CLI::Range(1, 64));
  app.add_option("--l", options.l, "column clusters")->check(CLI::Range(1, 64));
  app.add_option("--iterations", options.iterations, "iterations")->check(CLI::Range(1, 1000));
  app.add_option("--epsilon", options.epsilon, "CGC's epsilon");
  app.add_option("--chunk", options.chunk, "rows per chunk, rounded up to whole blocks")
      ->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "threads per block side")->check(CLI::Range(1, 32));
  app.add_option("--labels", options.labels, "write PREFIX.rows.csv and PREFIX.cols.csv");
  app.add_option("--save-matrix", options.save_matrix, "write the input matrix as .npy");
  lightning::add_run_options(
      app, options,
      {.seed = "seed of the planted co-clusters", .no_check = "skip the sequential reference"});
  CLI11_PARSE(app, argc, argv);
  options.chunk = lightning::whole_blocks(options.chunk, options.block);
  return lightning::exit_status("lightning_coclustering", [&] {
    lightning::PlantedMatrix data;
    if (!options.input.empty()) {
      store::NpyHeader header;
      const std::vector<std::byte> bytes = store::read_npy(options.input, header);
      if (header.type != device::ElementType::f32 || header.shape.size() != 2) {
        throw Error(
            fmt::format("'{}': co-clustering takes a 2-D matrix of float32 (f32), not a "
                        "{}-D array of {}",
                        options.input, header.shape.size(), device::to_string(header.type)));
      }
      options.rows = header.shape[0];
      options.cols = header.shape[1];
      data.values.resize(header.elements());
      std::memcpy(data.values.data(), bytes.data(), bytes.size());
      // CGC's I-divergence takes logarithms of co-cluster averages: no negative entries.
      for (std::size_t at = 0; at < data.values.size(); ++at) {
        if (!(data.values[at] >= 0.0f)) {
          throw Error(
              fmt::format("'{}': entry [{}, {}] is {}; co-clustering (CGC's I-divergence) "
                          "takes non-negative values",
                          options.input, at / options.cols, at % options.cols, data.values[at]));
        }
      }
    } else {
      data =
          lightning::planted_matrix(options.rows, options.cols, options.k, options.l, options.seed);
    }
    if (options.rows < static_cast<std::uint64_t>(options.k) ||
        options.cols < static_cast<std::uint64_t>(options.l)) {
      throw Error(fmt::format("a {}x{} matrix has fewer rows than --k {} or columns than --l {}",
                              options.rows, options.cols, options.k, options.l));
    }
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::coclustering_kernels());
    Outcome outcome;
    const int status = node.program().run([&](cluster::Driver& driver) {
      outcome = run_coclustering(node, driver, options, data.values);
    });
    if (status != 0 || node.rank() != 0) return status;
    const double cells = static_cast<double>(options.rows) * static_cast<double>(options.cols);
    std::printf(
        "coclustering: %llux%llu matrix, k = %d, l = %d, %d iterations, chunks of %llu "
        "rows (%s), %d rank(s) x %zu device(s)\n",
        static_cast<unsigned long long>(options.rows),
        static_cast<unsigned long long>(options.cols), options.k, options.l, options.iterations,
        static_cast<unsigned long long>(options.chunk), options.distribution.c_str(), node.size(),
        node.devices().size());
    std::printf(
        "time %.4f s (%.4f s per iteration), throughput %.3f GB/s of matrix per "
        "iteration, error %.6g\n",
        outcome.timed.seconds, outcome.timed.seconds / options.iterations,
        cells * 4 * options.iterations / outcome.timed.seconds / 1e9, outcome.result.error);
    if (!options.save_matrix.empty()) {
      store::write_npy(options.save_matrix, device::ElementType::f32, {options.rows, options.cols},
                       std::as_bytes(std::span(data.values)));
    }
    if (!options.labels.empty()) {
      write_labels(options.labels + ".rows.csv", "row", outcome.result.rows);
      write_labels(options.labels + ".cols.csv", "column", outcome.result.cols);
    }
    if (!options.check) return 0;
    double reference_seconds = 0;
    const lightning::CoclusteringResult expected = lightning::measure(reference_seconds, [&] {
      return lightning::coclustering_reference(data.values, options.rows, options.cols, options.k,
                                               options.l, options.iterations, options.epsilon);
    });
    lightning::print_reference("one thread, double", reference_seconds, outcome.timed.seconds);
    const std::uint64_t same_rows = agreeing(outcome.result.rows, expected.rows);
    const std::uint64_t same_cols = agreeing(outcome.result.cols, expected.cols);
    const bool passed = same_rows == expected.rows.size() && same_cols == expected.cols.size();
    std::string planted;
    if (options.input.empty()) {
      planted = fmt::format(
          "; planted co-clusters recovered: rows {}, columns {}",
          lightning::same_partition(outcome.result.rows, data.row_truth) ? "yes" : "no",
          lightning::same_partition(outcome.result.cols, data.col_truth) ? "yes" : "no");
    }
    std::printf(
        "check: %s (labels equal to the sequential reference: rows %llu of %zu, "
        "columns %llu of %zu%s)\n",
        passed ? "passed" : "FAILED", static_cast<unsigned long long>(same_rows),
        expected.rows.size(), static_cast<unsigned long long>(same_cols), expected.cols.size(),
        planted.c_str());
    return passed ? 0 : 1;
  });
}
