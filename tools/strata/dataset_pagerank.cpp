#include "dataset_pagerank.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "progress_line.hpp"
#include "strata/base/error.hpp"
#include "strata/dataset/datasets.hpp"
#include "strata/dataset/loop.hpp"
#include "strata/dataset/record_files.hpp"
#include "strata/node/node.hpp"

namespace strata::cli {
namespace {

namespace ds = strata::dataset;
using Clock = std::chrono::steady_clock;
constexpr double damping = 0.85;
constexpr double tolerance = 1e-6;

struct Edge {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
};
// An edge with its source's share (1 / out-degree) and its target's key: node * 2 + dangling.
struct WeightedEdge {
  std::uint32_t src = 0;
  std::uint64_t dst_key = 0;
  double share = 0;
};
// A node's rank; `key` is node * 2 + (1 if the node has no out-edges).
struct Rank {
  std::uint64_t key = 0;
  double value = 0;
};
struct Contribution {
  std::uint64_t key = 0;
  double value = 0;
};
// Sums over all nodes: the dangling nodes' rank, the nodes, the L1 change.
struct Totals {
  double dangling = 0;
  double nodes = 0;
  double change = 0;
};
using Degree = ds::Group<std::uint32_t, std::uint8_t>;

const ds::Select<Edge, std::uint32_t> source("strata.pagerank.source",
                                             [](const Edge& e) { return e.src; });
const ds::Select<Degree, std::uint32_t> degree_node("strata.pagerank.degree_node",
                                                    [](const Degree& d) { return d.key; });
const ds::Select<Rank, std::uint64_t> rank_node("strata.pagerank.rank_node",
                                                [](const Rank& r) { return r.key / 2; });
const ds::Select<WeightedEdge, std::uint32_t> weighted_source("strata.pagerank.weighted_source",
                                                              [](const WeightedEdge& e) {
                                                                return e.src;
                                                              });
const ds::Select<ds::Pair<WeightedEdge, Rank>, Contribution> contribution(
    "strata.pagerank.contribution", [](const ds::Pair<WeightedEdge, Rank>& p) {
      return Contribution{p.left.dst_key, p.right.value * p.left.share};
    });
const ds::Select<Contribution, std::uint64_t> contribution_key("strata.pagerank.contribution_key",
                                                               [](const Contribution& c) {
                                                                 return c.key;
                                                               });
const ds::Select<Contribution, double> contribution_value("strata.pagerank.contribution_value",
                                                          [](const Contribution& c) {
                                                            return c.value;
                                                          });
const ds::Combine<double> add("strata.pagerank.add",
                              [](const double& a, const double& b) { return a + b; });
const ds::Select<Rank, Totals> totals_of("strata.pagerank.totals_of", [](const Rank& r) {
  return Totals{r.key % 2 ? r.value : 0.0, 1.0, 0.0};
});
const ds::Combine<Totals> add_totals("strata.pagerank.add_totals", [](const Totals& a,
                                                                      const Totals& b) {
  return Totals{a.dangling + b.dangling, a.nodes + b.nodes, a.change + b.change};
});
// The new rank of a node from the sum of its in-edges' contributions (networkx's formula).
const ds::Select<ds::Group<std::uint64_t, double>, Rank, Totals> next_rank(
    "strata.pagerank.next_rank",
    [](const ds::Group<std::uint64_t, double>& g, std::span<const Totals> totals) {
      const Totals& t = totals[0];
      return Rank{g.key, damping * (g.value + t.dangling / t.nodes) + (1 - damping) / t.nodes};
    });
const ds::Select<ds::Pair<Rank, Rank>, Totals> change_of(
    "strata.pagerank.change_of", [](const ds::Pair<Rank, Rank>& p) {
      return Totals{0.0, 1.0, std::abs(p.left.value - p.right.value)};
    });
const ds::Where<Totals> not_converged("strata.pagerank.not_converged", [](const Totals& t) {
  return t.change >= t.nodes * tolerance;
});

ds::Dataset<Rank> step(const ds::Dataset<WeightedEdge>& edges, const ds::Dataset<Rank>& ranks) {
  const auto totals = ranks.select(totals_of).reduce(add_totals);
  return edges.join(ranks, weighted_source, rank_node)
      .select(contribution)
      .group_by(contribution_key)
      .aggregate(contribution_value, add)
      .select(next_rank, totals);
}

}  // namespace

int run_pagerank(const EffectiveConfig& effective, const DatasetOptions& options) {
  const auto started = Clock::now();
  const std::vector<Edge> edges = ds::read_csv(
      options.input, ds::Schema<Edge>().field("src", &Edge::src).field("dst", &Edge::dst));
  std::uint32_t nodes = 0;
  for (const Edge& e : edges)
    nodes = std::max({nodes, e.src + 1, e.dst + 1});
  node::NodeOptions node_options;
  node_options.config = effective.config;
  node::Node node(node_options);
  ds::Datasets::prepare(node);
  return node.program().run([&](cluster::Driver& driver) {
    // Out-degrees by a group-by, brought to the host to weigh the edges and mark the dangling
    // nodes once; the iterations never come back to it.
    ds::Datasets datasets(node, driver);
    const auto edge_set = datasets.from_host<Edge>("edges", edges);
    const auto degrees = edge_set.group_by(source).count().collect();
    std::vector<std::uint64_t> out_degree(nodes, 0);
    for (const Degree& d : degrees)
      out_degree[d.key] = d.count;
    std::vector<WeightedEdge> weighted;
    weighted.reserve(edges.size() + nodes);
    const auto key_of = [&](std::uint32_t v) {
      return std::uint64_t{v} * 2 + (out_degree[v] == 0 ? 1 : 0);
    };
    for (const Edge& e : edges)
      weighted.push_back({e.src, key_of(e.dst), 1.0 / static_cast<double>(out_degree[e.src])});
    // A share of 0 from every node to itself: every node gets a group, in-edges or not.
    for (std::uint32_t v = 0; v < nodes; ++v)
      weighted.push_back({v, key_of(v), 0.0});
    std::vector<Rank> initial(nodes);
    for (std::uint32_t v = 0; v < nodes; ++v)
      initial[v] = {key_of(v), 1.0 / nodes};
    const auto weighted_edges = datasets.from_host<WeightedEdge>("weighted edges", weighted);
    const auto start = datasets.from_host<Rank>("ranks", initial);
    const double load_seconds = std::chrono::duration<double>(Clock::now() - started).count();

    const auto loop_started = Clock::now();
    ProgressLine line;
    ds::LoopOptions loop{options.iterations, options.checkpoint, options.resume, {}};
    if (!options.quiet) {
      loop.on_iteration = [&](std::uint32_t done) {
        line.update(fmt::format("pagerank: iteration {}/{}", done, options.iterations));
      };
    }
    ds::LoopReport report;
    const auto ranks = ds::do_while(
        datasets, start, [&](const ds::Dataset<Rank>& r) { return step(weighted_edges, r); },
        [](const ds::Dataset<Rank>& old, const ds::Dataset<Rank>& next) {
          return next.join(old, rank_node, rank_node)
              .select(change_of)
              .reduce(add_totals)
              .where(not_converged);
        },
        loop, &report);
    std::vector<Rank> found = ranks.collect();
    const double loop_seconds = std::chrono::duration<double>(Clock::now() - loop_started).count();
    if (!options.quiet) line.finish(fmt::format("pagerank: {} iterations", report.iterations));
    std::sort(found.begin(), found.end(),
              [](const Rank& a, const Rank& b) { return a.key < b.key; });
    const std::filesystem::path dir = options.output;
    std::filesystem::create_directories(dir);
    {
      std::ofstream out(dir / "ranks.csv.part");
      out << "node,rank\n";
      for (const Rank& r : found)
        out << r.key / 2 << ',' << fmt::format("{}", r.value) << '\n';
    }
    std::filesystem::rename(dir / "ranks.csv.part", dir / "ranks.csv");
    fmt::print("strata dataset pagerank: {} nodes, {} edges, {} ranks\n", nodes, edges.size(),
               driver.size());
    fmt::print("  iterations       : {}{}\n", report.iterations,
               report.converged ? " (converged)" : " (the limit)");
    fmt::print("  load             : {:.3f} s\n", load_seconds);
    fmt::print("  iterations time  : {:.3f} s ({:.2f} ms each)\n", loop_seconds,
               1e3 * loop_seconds / std::max<std::uint32_t>(1, report.iterations));
    fmt::print("output: {} (each node's rank)\n", (dir / "ranks.csv").string());
  });
}

}  // namespace strata::cli
