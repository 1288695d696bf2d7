// lightning_kmeans: the lightning paper's K-Means benchmark (§4.2) on distributed arrays —
// planted clusters, `iterations` rounds of assign / reduce(+) / divide on the devices of every
// rank, throughput, and a check against the sequential reference. Runs under
// `strata launch -n N`.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <span>
#include <string>

#include "lightning/kmeans_data.hpp"
#include "lightning/kmeans_kernels.hpp"
#include "lightning/program.hpp"
#include "strata/array/arrays.hpp"
#include "strata/base/error.hpp"

namespace {

using namespace strata;
using array::Argument;
using array::Array;
using array::Distribution;
using array::Grid;
using array::WorkDistribution;

struct Options {
  std::uint64_t n = 1'000'000;
  int k = 40;
  int iterations = 5;
  std::uint64_t chunk = 250'000;  // points per chunk
  std::uint64_t block = 256;
  std::string distribution = "rows";
  std::string devices;  // backends; empty: the configuration's
  std::uint64_t seed = 1;
  std::string centres_csv;
  bool check = true;
};

struct Outcome {
  double seconds = 0;
  lightning::KMeansResult result;
  array::LaunchStats stats;
  lightning::PlanCounts counts;  // of the timed part
};

Outcome run_kmeans(node::Node& node, cluster::Driver& driver, const Options& options,
                   const std::vector<float>& points) {
  using device::ElementType;
  constexpr auto features = static_cast<std::uint64_t>(lightning::kmeans_features);
  const auto k = static_cast<std::uint64_t>(options.k);
  const std::vector<array::ArrayKernel> kernels = lightning::kmeans_kernels();
  array::Arrays arrays(node, driver);
  const bool round_robin = options.distribution == "round-robin";
  const Distribution cut = round_robin ? Distribution::round_robin({options.chunk})
                                       : Distribution::row_blocks(options.chunk);
  const std::uint64_t blocks = std::max<std::uint64_t>(1, options.chunk / options.block);
  const WorkDistribution work =
      round_robin ? WorkDistribution::round_robin({blocks}) : WorkDistribution::tiled({blocks});
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
  arrays.synchronize();
  const lightning::PlanCounts before = lightning::plan_counts(arrays, driver);
  const auto start = std::chrono::steady_clock::now();
  for (int it = 0; it < options.iterations; ++it)
    iterate();
  Outcome outcome;
  outcome.result.centres = arrays.read_as<float>(centres);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.counts = lightning::plan_counts(arrays, driver) - before;
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
  app.add_option("--distribution", options.distribution, "rows or round-robin")
      ->check(CLI::IsMember({"rows", "round-robin"}));
  app.add_option("--devices", options.devices, "backends to use, e.g. cpu or cpu,opencl");
  app.add_option("--seed", options.seed, "seed of the planted clusters");
  app.add_option("--centres", options.centres_csv, "write the final centres to this CSV file");
  app.add_flag("!--no-check", options.check, "skip the sequential reference (benchmark runs)");
  app.allow_extras();  // an MPI launcher's own arguments
  CLI11_PARSE(app, argc, argv);
  options.chunk = lightning::whole_blocks(options.chunk, options.block);
  try {
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
                outcome.seconds, points / outcome.seconds / 1e6,
                points * 16 / outcome.seconds / 1e9,
                static_cast<unsigned long long>(outcome.stats.superblocks));
    lightning::print_plan_counts(outcome.counts);
    if (!options.centres_csv.empty()) write_centres(options.centres_csv, outcome.result.centres);
    if (!options.check) return 0;
    const auto reference_start = std::chrono::steady_clock::now();
    const lightning::KMeansResult expected =
        lightning::kmeans_reference(data.points, options.k, options.iterations);
    const double reference_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - reference_start).count();
    std::printf("sequential reference (one thread, double sums): %.4f s, %.2fx the run's time\n",
                reference_seconds, reference_seconds / outcome.seconds);
    return check(outcome.result, expected, data.truth, options.k) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lightning_kmeans: %s\n", e.what());
    return 1;
  }
}
