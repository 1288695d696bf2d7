// The k-means of the dandelion paper's Fig. 1 on data sets: group the points by their nearest
// center (the centers a context every rank receives), average each group; against the same
// iterations in plain sequential C++ from the same initial centers.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "dataset_test_support.hpp"
#include "strata/dataset/loop.hpp"

namespace strata::dataset::testing {
namespace {

struct Point {
  std::array<double, 3> x{};
};

std::uint32_t nearest_center(const Point& p, std::span<const Point> centers) {
  std::uint32_t best = 0;
  double best_distance = std::numeric_limits<double>::max();
  for (std::uint32_t c = 0; c < centers.size(); ++c) {
    double d = 0;
    for (int i = 0; i < 3; ++i)
      d += (p.x[i] - centers[c].x[i]) * (p.x[i] - centers[c].x[i]);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

const Select<Point, std::uint32_t, Point> nearest("kmeans_test.nearest", nearest_center);
Point sum_of(const Point& a, const Point& b) {
  Point sum;
  for (int i = 0; i < 3; ++i)
    sum.x[i] = a.x[i] + b.x[i];
  return sum;
}
const Combine<Point> add_points("kmeans_test.add", sum_of);
const Select<Group<std::uint32_t, Point>, Point> mean("kmeans_test.mean",
                                                      [](const Group<std::uint32_t, Point>& g) {
                                                        Point m;
                                                        for (int i = 0; i < 3; ++i)
                                                          m.x[i] = g.value.x[i] / g.count;
                                                        return m;
                                                      });

// Keeps a new center that lies farther than 1e-6 from every old one: the loop goes on while any
// does.
const Where<Point, Point> moved("kmeans_test.moved",
                                [](const Point& p, std::span<const Point> old) {
                                  const Point& c = old[nearest_center(p, old)];
                                  double d = 0;
                                  for (int i = 0; i < 3; ++i)
                                    d += (p.x[i] - c.x[i]) * (p.x[i] - c.x[i]);
                                  return d > 1e-12;
                                });

// One k-means step in Strata: Fig. 1's OneStep.
Dataset<Point> one_step(const Dataset<Point>& points, const Dataset<Point>& centers) {
  return points.group_by(nearest, centers).aggregate(add_points).select(mean);
}

std::vector<Point> sequential_step(const std::vector<Point>& points,
                                   const std::vector<Point>& centers) {
  std::vector<Point> sums(centers.size());
  std::vector<std::uint64_t> counts(centers.size(), 0);
  for (const Point& p : points) {
    const std::uint32_t c = nearest_center(p, centers);
    sums[c] = sum_of(sums[c], p);
    ++counts[c];
  }
  std::vector<Point> next;
  for (std::size_t c = 0; c < centers.size(); ++c) {
    if (counts[c] == 0) continue;
    Point m;
    for (int i = 0; i < 3; ++i)
      m.x[i] = sums[c].x[i] / static_cast<double>(counts[c]);
    next.push_back(m);
  }
  return next;
}

bool before(const Point& a, const Point& b) {
  return a.x < b.x;
}

std::vector<Point> planted_points(const std::array<Point, 4>& planted) {
  std::mt19937 random(7);
  std::normal_distribution<double> noise(0, 0.6);
  std::vector<Point> points(8000);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& c = planted[i % planted.size()];
    for (int d = 0; d < 3; ++d)
      points[i].x[d] = c.x[d] + noise(random);
  }
  return points;
}

const std::array<Point, 4> planted{{{{0, 0, 0}}, {{5, 5, 0}}, {{0, 5, 5}}, {{5, 0, 5}}}};

TEST(DatasetKMeans, CentersMatchSequentialIterations) {
  const std::vector<Point> points = planted_points(planted);
  std::vector<Point> reference(points.begin(), points.begin() + 4);

  Datasets datasets(*the_node, *the_driver);
  const auto data = datasets.from_host<Point>("points", points, 16);
  auto centers = datasets.from_host<Point>("centers", std::span<const Point>(reference), 1);
  for (int iteration = 0; iteration < 8; ++iteration) {
    centers = one_step(data, centers);
    reference = sequential_step(points, reference);
  }
  std::vector<Point> got = centers.collect();
  ASSERT_EQ(got.size(), reference.size());
  std::sort(got.begin(), got.end(), before);
  std::sort(reference.begin(), reference.end(), before);
  for (std::size_t c = 0; c < got.size(); ++c) {
    for (int d = 0; d < 3; ++d)
      EXPECT_NEAR(got[c].x[d], reference[c].x[d], 1e-9) << "center " << c;
  }
  // The planted centers are found.
  for (const Point& p : planted) {
    const std::uint32_t c = nearest_center(p, got);
    for (int d = 0; d < 3; ++d)
      EXPECT_NEAR(got[c].x[d], p.x[d], 0.1);
  }
}

TEST(DatasetKMeans, DoWhileRunsToConvergenceAndAResumedLoopEndsByteIdentical) {
  const std::vector<Point> points = planted_points(planted);
  // Two starting centers in each of two planted clusters: several iterations to converge.
  const std::vector<Point> initial{points[0], points[4], points[1], points[5]};
  Datasets datasets(*the_node, *the_driver);
  const auto data = datasets.from_host<Point>("points", points, 16);
  const auto start = datasets.from_host<Point>("centers", std::span<const Point>(initial), 1);
  const auto step = [&](const Dataset<Point>& centers) { return one_step(data, centers); };
  const auto changed = [](const Dataset<Point>& old, const Dataset<Point>& next) {
    return next.where(moved, old);
  };
  LoopReport clean;
  const std::vector<Point> converged =
      do_while(datasets, start, step, changed, {50, {}, false, {}}, &clean).collect();
  EXPECT_TRUE(clean.converged);
  ASSERT_GT(clean.iterations, 3u);
  EXPECT_LT(clean.iterations, 50u);

  // Stopped after two iterations (as a killed run leaves its checkpoint), then resumed.
  const std::string checkpoint = ::testing::TempDir() + "kmeans.checkpoint";
  std::remove(checkpoint.c_str());
  LoopReport first;
  do_while(datasets, start, step, changed, {2, checkpoint, true, {}}, &first);
  EXPECT_EQ(first.iterations, 2u);
  EXPECT_FALSE(first.converged);
  LoopReport resumed;
  const std::vector<Point> again =
      do_while(datasets, start, step, changed, {50, checkpoint, true, {}}, &resumed).collect();
  EXPECT_EQ(resumed.resumed_after, 2u);
  EXPECT_EQ(resumed.iterations, clean.iterations);
  ASSERT_EQ(again.size(), converged.size());
  EXPECT_EQ(std::memcmp(again.data(), converged.data(), again.size() * sizeof(Point)), 0);
  std::remove(checkpoint.c_str());
}

}  // namespace
}  // namespace strata::dataset::testing
