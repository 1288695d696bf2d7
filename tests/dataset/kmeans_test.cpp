// The k-means of the dandelion paper's Fig. 1 on data sets: group the points by their nearest
// center (the centers a context every rank receives), average each group; against the same
// iterations in plain sequential C++ from the same initial centers.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "dataset_test_support.hpp"

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

TEST(DatasetKMeans, CentersMatchSequentialIterations) {
  std::mt19937 random(7);
  std::normal_distribution<double> noise(0, 0.6);
  const std::array<Point, 4> planted{{{{0, 0, 0}}, {{5, 5, 0}}, {{0, 5, 5}}, {{5, 0, 5}}}};
  std::vector<Point> points(8000);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& c = planted[i % planted.size()];
    for (int d = 0; d < 3; ++d)
      points[i].x[d] = c.x[d] + noise(random);
  }
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

}  // namespace
}  // namespace strata::dataset::testing
