// The k-means of the dandelion paper's Fig. 1 written with Strata's data sets (docs/datasets.md):
// points grouped by their nearest center, each group averaged, until no center moves; then
// checked against the same iterations in plain C++.
//
//   example_dataset_kmeans                          # a cluster of one
//   strata launch -n 4 -- example_dataset_kmeans    # four processes, rank 0 is the driver

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "strata/dataset/datasets.hpp"
#include "strata/dataset/loop.hpp"

namespace ds = strata::dataset;

struct Vector {
  std::array<double, 4> x{};
};

double distance2(const Vector& a, const Vector& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.x.size(); ++i)
    d += (a.x[i] - b.x[i]) * (a.x[i] - b.x[i]);
  return d;
}

std::uint32_t nearest_center(const Vector& v, std::span<const Vector> centers) {
  std::uint32_t best = 0;
  double best_distance = std::numeric_limits<double>::max();
  for (std::uint32_t c = 0; c < centers.size(); ++c) {
    if (distance2(v, centers[c]) < best_distance) {
      best_distance = distance2(v, centers[c]);
      best = c;
    }
  }
  return best;
}

// User functions, registered by name on every rank (they are globals of the one program).
const ds::Select<Vector, std::uint32_t, Vector> nearest("nearest", nearest_center);
const ds::Combine<Vector> add("add", [](const Vector& a, const Vector& b) {
  Vector sum;
  for (std::size_t i = 0; i < sum.x.size(); ++i)
    sum.x[i] = a.x[i] + b.x[i];
  return sum;
});
const ds::Select<ds::Group<std::uint32_t, Vector>, Vector> mean(
    "mean", [](const ds::Group<std::uint32_t, Vector>& g) {
      Vector m;
      for (std::size_t i = 0; i < m.x.size(); ++i)
        m.x[i] = g.value.x[i] / static_cast<double>(g.count);
      return m;
    });
const ds::Where<Vector, Vector> moved("moved", [](const Vector& c, std::span<const Vector> old) {
  return distance2(c, old[nearest_center(c, old)]) > 1e-18;
});

// Fig. 1's OneStep: vectors.GroupBy(v => NearestCenter(v, centers))
//                           .Select(g => g.Aggregate((x, y) => x + y) / g.Count())
ds::Dataset<Vector> one_step(const ds::Dataset<Vector>& vectors,
                             const ds::Dataset<Vector>& centers) {
  return vectors.group_by(nearest, centers).aggregate(add).select(mean);
}

int main(int argc, char** argv) {
  strata::node::Node node(argc, argv);
  ds::Datasets::prepare(node);  // on every rank, before the program runs
  return node.program().run([&](strata::cluster::Driver& driver) {
    std::mt19937 random(1);
    std::normal_distribution<double> noise(0.0, 0.5);
    std::vector<Vector> points(100000);
    for (std::size_t i = 0; i < points.size(); ++i) {
      for (std::size_t d = 0; d < 4; ++d)
        points[i].x[d] = 4.0 * static_cast<double>((i % 5 + d) % 5) + noise(random);
    }
    const std::vector<Vector> first(points.begin(), points.begin() + 5);

    ds::Datasets datasets(node, driver);
    const auto vectors = datasets.from_host<Vector>("vectors", points);
    const auto start = datasets.from_host<Vector>("centers", std::span<const Vector>(first), 1);
    ds::LoopReport report;
    const auto centers = ds::do_while(
        datasets, start,
        [&](const ds::Dataset<Vector>& current) { return one_step(vectors, current); },
        [](const ds::Dataset<Vector>& current, const ds::Dataset<Vector>& next) {
          return next.where(moved, current);  // go on while a center moved
        },
        {100, {}, false, {}}, &report);
    const std::vector<Vector> found = centers.collect();

    // The same iterations, sequentially: each center found is one of these.
    std::vector<Vector> expected = first;
    for (std::uint32_t iteration = 0; iteration < report.iterations; ++iteration) {
      std::vector<Vector> sums(expected.size());
      std::vector<double> counts(expected.size(), 0);
      for (const Vector& p : points) {
        const std::uint32_t c = nearest_center(p, expected);
        for (std::size_t d = 0; d < 4; ++d)
          sums[c].x[d] += p.x[d];
        counts[c] += 1;
      }
      for (std::size_t c = 0; c < expected.size(); ++c) {
        for (std::size_t d = 0; d < 4; ++d)
          expected[c].x[d] = sums[c].x[d] / counts[c];
      }
    }
    double worst = 0;
    for (const Vector& c : found)
      worst = std::max(worst, std::sqrt(distance2(c, expected[nearest_center(c, expected)])));
    const bool correct = found.size() == expected.size() && worst < 1e-9;
    std::printf("%d ranks: %zu centers after %u iterations (%s), %s (largest gap %.2g)\n",
                driver.size(), found.size(), report.iterations,
                report.converged ? "converged" : "the limit",
                correct ? "as sequential C++" : "NOT as sequential C++", worst);
    if (!correct) throw strata::Error("the centers differ from sequential C++");
  });
}
