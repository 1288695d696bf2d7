#include "dataset_command.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "dataset_pagerank.hpp"
#include "progress_line.hpp"
#include "strata/base/error.hpp"
#include "strata/dataset/datasets.hpp"
#include "strata/dataset/loop.hpp"
#include "strata/dataset/record_files.hpp"
#include "strata/node/node.hpp"
#include "strata/store/npy.hpp"

namespace strata::cli {
namespace {

namespace ds = strata::dataset;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The rows of the input as doubles: (rows, columns, values).
struct Rows {
  std::uint64_t rows = 0;
  std::uint64_t columns = 0;
  std::vector<double> values;
};

Rows read_rows(const std::string& path) {
  Rows rows;
  if (path.ends_with(".npy")) {
    store::NpyHeader header;
    const std::vector<std::byte> data = store::read_npy(path, header);
    if (header.shape.size() != 2) throw Error("'" + path + "': k-means reads a 2-d .npy file");
    rows.rows = header.shape[0];
    rows.columns = header.shape[1];
    rows.values.resize(rows.rows * rows.columns);
    for (std::size_t i = 0; i < rows.values.size(); ++i) {
      if (header.type == device::ElementType::f64) {
        std::memcpy(&rows.values[i], data.data() + 8 * i, 8);
      } else if (header.type == device::ElementType::f32) {
        float v;
        std::memcpy(&v, data.data() + 4 * i, 4);
        rows.values[i] = v;
      } else {
        throw Error("'" + path + "': k-means reads f32 or f64 .npy files");
      }
    }
    return rows;
  }
  const ds::IdxFile idx = ds::read_idx(path);
  if (idx.dimensions.empty()) throw Error("'" + path + "': an IDX file without dimensions");
  rows.rows = idx.dimensions[0];
  rows.columns = idx.data.size() / std::max<std::uint64_t>(1, rows.rows);
  rows.values.resize(idx.data.size());
  for (std::size_t i = 0; i < idx.data.size(); ++i)
    rows.values[i] = std::to_integer<unsigned>(idx.data[i]);
  return rows;
}

// K-means over points of at most D coordinates (fewer are padded with zeros, which changes no
// distance and no mean).
template <std::size_t D>
struct KMeans {
  struct Point {
    std::array<double, D> x{};
  };
  using Sums = ds::Group<std::uint32_t, Point>;

  static double distance2(const Point& a, const Point& b) {
    double d = 0;
    for (std::size_t i = 0; i < D; ++i)
      d += (a.x[i] - b.x[i]) * (a.x[i] - b.x[i]);
    return d;
  }
  static std::uint32_t nearest_of(const Point& p, std::span<const Point> centers) {
    std::uint32_t best = 0;
    double best_distance = std::numeric_limits<double>::max();
    for (std::uint32_t c = 0; c < centers.size(); ++c) {
      const double d = distance2(p, centers[c]);
      if (d < best_distance) {
        best_distance = d;
        best = c;
      }
    }
    return best;
  }

  static inline const ds::Select<Point, std::uint32_t, Point> nearest{
      fmt::format("strata.kmeans{}.nearest", D), nearest_of};
  static inline const ds::Combine<Point> add{fmt::format("strata.kmeans{}.add", D),
                                             [](const Point& a, const Point& b) {
                                               Point s;
                                               for (std::size_t i = 0; i < D; ++i)
                                                 s.x[i] = a.x[i] + b.x[i];
                                               return s;
                                             }};
  static inline const ds::Select<Sums, Point> mean{fmt::format("strata.kmeans{}.mean", D),
                                                   [](const Sums& g) {
                                                     Point m;
                                                     for (std::size_t i = 0; i < D; ++i)
                                                       m.x[i] = g.value.x[i] / g.count;
                                                     return m;
                                                   }};
  // A new center that is no old one: the loop goes on while there is one.
  static inline const ds::Where<Point, Point> moved{
      fmt::format("strata.kmeans{}.moved", D), [](const Point& p, std::span<const Point> old) {
        return distance2(p, old[nearest_of(p, old)]) != 0;
      }};
  static inline const ds::Select<Point, double, Point> inertia_of{
      fmt::format("strata.kmeans{}.inertia", D),
      [](const Point& p, std::span<const Point> centers) {
        return distance2(p, centers[nearest_of(p, centers)]);
      }};
  static inline const ds::Combine<double> sum{
      fmt::format("strata.kmeans{}.sum", D),
      [](const double& a, const double& b) { return a + b; }};

  static int run(node::Node& node, const Rows& rows, const DatasetOptions& options) {
    // Every rank registered the functions (static members of this instantiation) above.
    return node.program().run([&](cluster::Driver& driver) {
      const auto started = Clock::now();
      std::vector<Point> points(rows.rows);
      for (std::uint64_t r = 0; r < rows.rows; ++r) {
        for (std::uint64_t c = 0; c < rows.columns; ++c)
          points[r].x[c] = rows.values[r * rows.columns + c];
      }
      if (options.k == 0 || options.k > points.size())
        throw Error(fmt::format("--k {} for {} points", options.k, points.size()));
      ds::Datasets datasets(node, driver);
      const auto data = datasets.from_host<Point>("points", points);
      const std::vector<Point> first(points.begin(), points.begin() + options.k);
      const auto initial = datasets.from_host<Point>("centers", std::span<const Point>(first), 1);
      const double load_seconds = seconds_since(started);

      ProgressLine line;
      const auto loop_started = Clock::now();
      ds::LoopOptions loop{options.iterations, options.checkpoint, options.resume, {}};
      if (!options.quiet) {
        loop.on_iteration = [&](std::uint32_t done) {
          const double s = seconds_since(loop_started);
          line.update(fmt::format("k-means: iteration {}/{} | {:.2f} s | {:.1f} ms/iteration", done,
                                  options.iterations, s, 1e3 * s / done));
        };
      }
      ds::LoopReport report;
      const auto centers = ds::do_while(
          datasets, initial,
          [&](const ds::Dataset<Point>& c) {
            return data.group_by(nearest, c).aggregate(add).select(mean);
          },
          [](const ds::Dataset<Point>& old, const ds::Dataset<Point>& next) {
            return next.where(moved, old);
          },
          loop, &report);
      const std::vector<Point> found = centers.collect();
      const double loop_seconds = seconds_since(loop_started);
      if (!options.quiet) line.finish(fmt::format("k-means: {} iterations", report.iterations));

      const auto out_started = Clock::now();
      const double inertia = data.select(inertia_of, centers).aggregate(sum).value_or(0);
      const std::vector<std::uint32_t> assigned = data.select(nearest, centers).collect();
      std::vector<std::byte> labels;
      if (!options.labels.empty()) {
        labels = ds::read_idx(options.labels).data;
        if (labels.size() < assigned.size())
          throw Error("'" + options.labels + "' has fewer labels than there are points");
      }
      const std::filesystem::path dir = options.output;
      std::filesystem::create_directories(dir);
      {
        std::ofstream out(dir / "centers.csv.part");
        out << "cluster";
        for (std::uint64_t c = 0; c < rows.columns; ++c)
          out << ",x" << c;
        out << '\n';
        for (std::size_t c = 0; c < found.size(); ++c) {
          out << c;
          for (std::uint64_t d = 0; d < rows.columns; ++d)
            out << ',' << fmt::format("{}", found[c].x[d]);
          out << '\n';
        }
      }
      std::filesystem::rename(dir / "centers.csv.part", dir / "centers.csv");
      {
        std::ofstream out(dir / "assignments.csv.part");
        out << (labels.empty() ? "point,cluster\n" : "point,cluster,label\n");
        for (std::size_t p = 0; p < assigned.size(); ++p) {
          out << p << ',' << assigned[p];
          if (!labels.empty()) out << ',' << std::to_integer<unsigned>(labels[p]);
          out << '\n';
        }
      }
      std::filesystem::rename(dir / "assignments.csv.part", dir / "assignments.csv");
      fmt::print("strata dataset kmeans: {} points of {} coordinates, k = {}, {} ranks\n",
                 points.size(), rows.columns, options.k, driver.size());
      fmt::print("  iterations       : {}{}{}\n", report.iterations,
                 report.converged ? " (converged)" : " (the limit)",
                 report.resumed_after ? fmt::format(", resumed after {}", report.resumed_after)
                                      : std::string());
      fmt::print("  clusters         : {}\n", found.size());
      fmt::print("  inertia          : {:.10g}\n", inertia);
      fmt::print("  load             : {:.3f} s\n", load_seconds);
      fmt::print("  iterations time  : {:.3f} s ({:.2f} ms each)\n", loop_seconds,
                 1e3 * loop_seconds / std::max<std::uint32_t>(1, report.iterations));
      fmt::print("  outputs          : {:.3f} s\n", seconds_since(out_started));
      fmt::print("output: {} (the centers, one row each)\n", (dir / "centers.csv").string());
      fmt::print("output: {} (each point's cluster)\n", (dir / "assignments.csv").string());
    });
  }
};

int run_kmeans(const EffectiveConfig& effective, const DatasetOptions& options) {
  Rows rows = read_rows(options.input);
  if (options.points != 0 && options.points < rows.rows) {
    rows.rows = options.points;
    rows.values.resize(rows.rows * rows.columns);
  }
  node::NodeOptions node_options;
  node_options.config = effective.config;
  node::Node node(node_options);
  ds::Datasets::prepare(node);
  if (rows.columns <= 16) return KMeans<16>::run(node, rows, options);
  if (rows.columns <= 64) return KMeans<64>::run(node, rows, options);
  if (rows.columns <= 1024) return KMeans<1024>::run(node, rows, options);
  throw Error(
      fmt::format("'{}': {} coordinates per point, at most 1024", options.input, rows.columns));
}

}  // namespace

CLI::App& add_dataset_command(CLI::App& app, DatasetOptions& options) {
  CLI::App& command =
      *app.add_subcommand("dataset", "data-set workloads (docs/datasets.md): k-means, PageRank");
  command.require_subcommand(1);
  CLI::App& kmeans = *command.add_subcommand(
      "kmeans",
      "Cluster the rows of an IDX (MNIST, Fashion-MNIST) or 2-d .npy file, starting from its "
      "first k rows; writes centers.csv and assignments.csv");
  kmeans.add_option("input", options.input, "The points")->required()->check(CLI::ExistingFile);
  kmeans.add_option("--labels", options.labels,
                    "An IDX file of labels, written beside the clusters");
  kmeans.add_option("--k", options.k, "Clusters")->check(CLI::Range(1u, 100000u));
  kmeans.add_option("--iterations", options.iterations, "At most this many iterations");
  kmeans.add_option("--points", options.points, "Use the first N points only");
  kmeans.add_option("--output", options.output, "Directory of the CSV files (default: .)");
  kmeans.add_option("--checkpoint", options.checkpoint, "Checkpoint each iteration's centers here");
  kmeans.add_flag("--resume", options.resume, "Continue from the checkpoint where there is one");
  kmeans.add_flag("--quiet", options.quiet, "No progress line");
  CLI::App& pagerank = *command.add_subcommand(
      "pagerank",
      "PageRank over the edges of a CSV file with columns src and dst (node numbers from 0), "
      "networkx's rules; writes ranks.csv");
  pagerank.add_option("input", options.input, "The edges")->required()->check(CLI::ExistingFile);
  pagerank.add_option("--iterations", options.iterations, "At most this many iterations");
  pagerank.add_option("--output", options.output, "Directory of ranks.csv (default: .)");
  pagerank.add_option("--checkpoint", options.checkpoint, "Checkpoint each iteration's ranks here");
  pagerank.add_flag("--resume", options.resume, "Continue from the checkpoint where there is one");
  pagerank.add_flag("--quiet", options.quiet, "No progress line");
  return command;
}

int run_dataset_command(const CLI::App& command, const EffectiveConfig& effective,
                        const DatasetOptions& options) {
  if (command.get_subcommand("kmeans")->parsed()) return run_kmeans(effective, options);
  if (command.get_subcommand("pagerank")->parsed()) return run_pagerank(effective, options);
  throw Error("strata dataset: no workload given");
}

}  // namespace strata::cli
