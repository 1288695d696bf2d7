// lightning_kmeans: the lightning paper's K-Means benchmark (§4.2) on distributed arrays —
// planted clusters, `iterations` rounds of assign / reduce(+) / divide on the devices of every
// rank, throughput, and a check against the sequential reference. Runs under
// `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <span>
#include <string>

#include "lightning/kmeans_data.hpp"
#include "lightning/kmeans_kernels.hpp"
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
  std::uint64_t n = 1'000'000;
  int k = 40;
  int iterations = 5;
  std::uint64_t chunk = 250'000;  // points per chunk
  std::uint64_t block = 256;
  std::string centres_csv;
};

struct Outcome {
  lightning::Timed timed;
  lightning::KMeansResult result;
  array::LaunchStats stats;
};

Outcome run_kmeans(node::Node& node, cluster::Driver& driver, const Options& options,
                   const std::vector<float>& points) {
  using device::ElementType;
  constexpr auto features = static_cast<std::uint64_t>(lightning::kmeans_features);
  const auto k = static_cast<std::uint64_t>(options.k);
  const std::vector<array::ArrayKernel> kernels = lightning::kmeans_kernels();
  array::Arrays arrays(node, driver);
  const Distribution cut = lightning::chunk_distribution(options, options.chunk);
  const WorkDistribution work = lightning::chunk_work(options, options.chunk, options.block);
  const std::vector<float> seeds(points.begin(),
                                 points.begin() + static_cast<std::ptrdiff_t>(k * features));
  Array dpoints = arrays.from_host<float>("points", {options.n, features}, cut, points);
  Array centres =
      arrays.from_host<float>("centres", {k, features}, Distribution::replicated(), seeds);
  Array labels = arrays.create("labels", ElementType::i32, {options.n}, cut);
  Array sums = arrays.create("sums", ElementType::f32, {k, features}, Distribution::replicated());
  Array counts = arrays.create("counts", ElementType::i32, {k}, Distribution::replicated());
  const auto n32 = static_cast<std::int32_t>(options.n);
  const auto k32 = static_cast<std::int32_t>(k);
  const Grid points_grid{{options.n}, {options.block}};
  const auto iterate = [&] {
    arrays.launch(kernels[0], points_grid, work,
                  {Argument::value(n32), Argument::value(k32), dpoints, centres, labels});
    arrays.launch(kernels[1], points_grid, work,
                  {Argument::value(n32), Argument::value(k32), dpoints, labels, sums, counts});
    arrays.launch(kernels[2], Grid{{k}, {k}}, WorkDistribution::tiled({1}),
                  {Argument::value(k32), sums, counts, centres});
  };
  // One round untimed compiles every superblock's kernels; the seeds then go back in place.
  iterate();
  arrays.write(centres, std::as_bytes(std::span<const float>(seeds)));
  Outcome outcome;
  // The timed part ends when the final centres are read.
  outcome.timed = lightning::time_part(arrays, driver, [&] {
    for (int it = 0; it < options.iterations; ++it)
      iterate();
    outcome.result.centres = arrays.read_as<float>(centres);
  });
  outcome.result.labels = arrays.read_as<std::int32_t>(labels);
  outcome.stats = arrays.stats();
  for (Array* gone : {&dpoints, &centres, &labels, &sums, &counts})
    arrays.destroy(*gone);
  return outcome;
}

// Labels equal and centres within a relative 1e-4 of the reference (float sums in another order).
bool check(const lightning::KMeansResult& got, const lightning::KMeansResult& expected,
           const std::vector<std::int32_t>& truth, int k) {
  std::uint64_t same = 0;
  for (std::size_t i = 0; i < expected.labels.size(); ++i)
    same += got.labels[i] == expected.labels[i] ? 1 : 0;
  double worst = 0;
  for (std::size_t i = 0; i < expected.centres.size(); ++i) {
    const double scale = std::max(1.0, std::fabs(static_cast<double>(expected.centres[i])));
    worst = std::max(worst,
                     std::fabs(static_cast<double>(got.centres[i]) - expected.centres[i]) / scale);
  }
  // The planted truth, up to the clusters' numbering: seeds are points 0..k-1, one per cluster.
  std::uint64_t planted = 0;
  for (std::size_t i = 0; i < truth.size(); ++i)
    planted += got.labels[i] == truth[i] % k ? 1 : 0;
  const bool passed = same == expected.labels.size() && worst <= 1e-4;
  std::printf(
      "check: %s (labels equal to the sequential reference: %llu of %zu; centres within %.2g "
      "relative; planted clusters recovered: %llu of %zu points)\n",
      passed ? "passed" : "FAILED", static_cast<unsigned long long>(same), expected.labels.size(),
      worst, static_cast<unsigned long long>(planted), truth.size());
  return passed;
}

void write_centres(const std::string& path, const std::vector<float>& centres) {
  std::ofstream out(path + ".partial");
  out << "cluster,f0,f1,f2,f3\n";
  for (std::size_t c = 0; c * 4 < centres.size(); ++c)
    out << fmt::format("{},{},{},{},{}\n", c, centres[c * 4], centres[c * 4 + 1],
                       centres[c * 4 + 2], centres[c * 4 + 3]);
  out.close();
  if (!out) throw Error("writing the centres to '" + path + "' failed");
  std::rename((path + ".partial").c_str(), path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("K-Means on distributed arrays (the lightning paper's benchmark)");
  app.add_option("--n", options.n, "points (4 features each)")->check(CLI::Range(1, 1 << 30));
  app.add_option("--k", options.k, "clusters")->check(CLI::Range(1, 256));
  app.add_option("--iterations", options.iterations, "rounds")->check(CLI::Range(1, 1000));
  app.add_option("--chunk", options.chunk, "points per chunk, rounded up to whole blocks")
      ->check(CLI::PositiveNumber);
  app.add_option("--block", options.block, "threads per block")->check(CLI::Range(1, 1024));
  app.add_option("--centres", options.centres_csv, "write the final centres to this CSV file");
  lightning::add_run_options(app, options, {.seed = "seed of the planted clusters"});
  CLI11_PARSE(app, argc, argv);
  options.chunk = lightning::whole_blocks(options.chunk, options.block);
  return lightning::exit_status("lightning_kmeans", [&] {
    if (options.n < static_cast<std::uint64_t>(options.k)) {
      throw Error(fmt::format("--n {} is fewer points than --k {} clusters", options.n, options.k));
    }
    node::Node node(argc, argv, lightning::node_options(options.devices));
    array::Arrays::prepare(node, lightning::kmeans_kernels());
    const lightning::PlantedPoints data =
        lightning::planted_points(options.n, options.k, options.seed);
    Outcome outcome;
    const int status = node.program().run(
        [&](cluster::Driver& driver) { outcome = run_kmeans(node, driver, options, data.points); });
    if (status != 0 || node.rank() != 0) return status;
    const double points = static_cast<double>(options.n) * options.iterations;
    std::printf(
        "kmeans: %llu points x 4 features, k = %d, %d iterations, chunks of %llu points (%s), "
        "%d rank(s) x %zu device(s)\n",
        static_cast<unsigned long long>(options.n), options.k, options.iterations,
        static_cast<unsigned long long>(options.chunk), options.distribution.c_str(), node.size(),
        node.devices().size());
    std::printf("time %.4f s, throughput %.2f Mpoints/s (%.3f GB/s of points), %llu superblocks\n",
                outcome.timed.seconds, points / outcome.timed.seconds / 1e6,
                points * 16 / outcome.timed.seconds / 1e9,
                static_cast<unsigned long long>(outcome.stats.superblocks));
    lightning::print_plan_counts(outcome.timed.counts);
    if (!options.centres_csv.empty()) write_centres(options.centres_csv, outcome.result.centres);
    if (!options.check) return 0;
    double reference_seconds = 0;
    const lightning::KMeansResult expected = lightning::measure(reference_seconds, [&] {
      return lightning::kmeans_reference(data.points, options.k, options.iterations);
    });
    lightning::print_reference("one thread, double sums", reference_seconds, outcome.timed.seconds);
    return check(outcome.result, expected, data.truth, options.k) ? 0 : 1;
  });
}
