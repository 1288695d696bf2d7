// The spliter paper's experiment (§6.2–6.3) on Strata's data sets: the time of a histogram and
// of k-means iterations against the number of blocks per core, with one task per block, with a
// rechunk to one block per core first, and with partitions (split), beside the same work in
// plain sequential C++ in the same run. JSON lines, one per (workload, variant, blocks).
//
//   bench_dataset_spliter [--points N] [--repetitions R] [--blocks-per-core 1,2,4,...] [--out F]

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

#include "bench_flags.hpp"
#include "bench_json.hpp"
#include "strata/dataset/datasets.hpp"
#include "strata/runtime/settings.hpp"

namespace ds = strata::dataset;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t dims = 8;
constexpr std::uint32_t clusters = 8;
constexpr std::uint32_t bins = 16;  // per dimension of the 2-d histogram
constexpr int iterations = 5;

struct Point {
  std::array<double, dims> x{};
};

Point point_of(std::uint64_t i) {
  // A fixed pseudo-random point per index (splitmix64 per coordinate), planted around 8 centers.
  Point p;
  std::uint64_t s = i * 0x9e3779b97f4a7c15ull;
  for (std::size_t d = 0; d < dims; ++d) {
    s += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    p.x[d] = static_cast<double>(i % clusters) + static_cast<double>(z >> 11) * 0x1p-53;
  }
  return p;
}

std::uint32_t bin_of_point(const Point& p) {
  const auto b = [](double v) {
    return static_cast<std::uint32_t>(std::clamp(v / clusters, 0.0, 0.999999) * bins);
  };
  return b(p.x[1]) * bins + b(p.x[0]);
}

double distance2(const Point& a, const Point& b) {
  double d = 0;
  for (std::size_t i = 0; i < dims; ++i)
    d += (a.x[i] - b.x[i]) * (a.x[i] - b.x[i]);
  return d;
}

std::uint32_t nearest_of(const Point& p, std::span<const Point> centers) {
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

Point sum_of(const Point& a, const Point& b) {
  Point s;
  for (std::size_t i = 0; i < dims; ++i)
    s.x[i] = a.x[i] + b.x[i];
  return s;
}

const ds::Select<std::uint64_t, Point> make_point("bench.point", point_of);
const ds::Select<Point, std::uint32_t> bin_of("bench.bin", bin_of_point);
const ds::Select<Point, std::uint32_t, Point> nearest("bench.nearest", nearest_of);
const ds::Combine<Point> add("bench.add", sum_of);
const ds::Select<ds::Group<std::uint32_t, Point>, Point> mean(
    "bench.mean", [](const ds::Group<std::uint32_t, Point>& g) {
      Point m;
      for (std::size_t i = 0; i < dims; ++i)
        m.x[i] = g.value.x[i] / static_cast<double>(g.count);
      return m;
    });

std::vector<Point> initial_centers() {
  std::vector<Point> centers;
  for (std::uint64_t i = 0; i < clusters; ++i)
    centers.push_back(point_of(i * 7919 + 3));
  return centers;
}

// The sequential references.
std::vector<std::uint64_t> sequential_histogram(const std::vector<Point>& points) {
  std::vector<std::uint64_t> counts(bins * bins, 0);
  for (const Point& p : points)
    ++counts[bin_of_point(p)];
  return counts;
}

std::vector<Point> sequential_kmeans(const std::vector<Point>& points) {
  std::vector<Point> centers = initial_centers();
  for (int it = 0; it < iterations; ++it) {
    std::vector<Point> sums(centers.size());
    std::vector<double> counts(centers.size(), 0);
    for (const Point& p : points) {
      const std::uint32_t c = nearest_of(p, centers);
      sums[c] = sum_of(sums[c], p);
      counts[c] += 1;
    }
    std::vector<Point> next;
    for (std::size_t c = 0; c < centers.size(); ++c) {
      if (counts[c] == 0) continue;
      Point m;
      for (std::size_t i = 0; i < dims; ++i)
        m.x[i] = sums[c].x[i] / counts[c];
      next.push_back(m);
    }
    centers = next;
  }
  return centers;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t points = 2000000;
  int repetitions = 5;
  std::string out_path = "dataset-spliter.json";
  std::vector<std::uint32_t> per_core{1, 2, 4, 8, 16, 32, 48};
  strata::bench::parse_flags(
      argc, argv,
      {{{"--points", [&](const std::string& v) { points = std::stoull(v); }},
        {"--repetitions", [&](const std::string& v) { repetitions = std::stoi(v); }},
        {"--out", [&](const std::string& v) { out_path = v; }},
        {"--blocks-per-core",
         [&](const std::string& v) {
           per_core.clear();
           std::stringstream list(v);
           for (std::string item; std::getline(list, item, ',');)
             per_core.push_back(static_cast<std::uint32_t>(std::stoul(item)));
         }}},
       {}});
  strata::node::NodeOptions options;
  strata::node::Node node(argc, argv, options);
  ds::Datasets::prepare(node);
  return node.program().run([&](strata::cluster::Driver& driver) {
    const unsigned cores =
        static_cast<unsigned>(node.runtime().executor(node.runtime().cpu()).worker_count()) *
        static_cast<unsigned>(driver.size());
    std::ofstream out(out_path);
    const auto emit = [&](const std::string& workload, const std::string& variant,
                          std::uint32_t blocks_per_core, const std::vector<double>& times) {
      const std::string line = fmt::format(
          "{{\"workload\": {}, \"variant\": {}, \"blocks_per_core\": {}, \"cores\": {}, "
          "\"points\": {}, \"median\": {:.9g}, \"seconds\": {}}}",
          strata::bench::json_string(workload), strata::bench::json_string(variant),
          blocks_per_core, cores, points, strata::bench::median_of(times),
          strata::bench::json_list(times));
      out << line << '\n';
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    };

    std::vector<Point> all(points);
    for (std::uint64_t i = 0; i < points; ++i)
      all[i] = point_of(i);
    const std::vector<std::uint64_t> histogram = sequential_histogram(all);
    const std::vector<Point> kmeans = sequential_kmeans(all);
    {
      std::vector<double> h;
      std::vector<double> k;
      for (int r = 0; r < repetitions; ++r) {
        auto start = Clock::now();
        if (sequential_histogram(all) != histogram) throw strata::Error("histogram changed");
        h.push_back(seconds_since(start));
        start = Clock::now();
        (void)sequential_kmeans(all);
        k.push_back(seconds_since(start));
      }
      emit("histogram", "sequential", 0, h);
      emit("kmeans", "sequential", 0, k);
    }
    const std::vector<Point> start_centers = initial_centers();
    for (const std::uint32_t bpc : per_core) {
      for (const std::string variant : {"block", "rechunk", "split"}) {
        ds::Datasets datasets(
            node, driver,
            {0, variant == "block" ? ds::TaskUnit::block : ds::TaskUnit::partition, 1u << 14});
        const auto data = datasets.generate<Point>("points", points, make_point, bpc * cores);
        driver.wait_all();  // made before timing
        std::vector<double> h;
        std::vector<double> k;
        for (int r = 0; r < repetitions; ++r) {
          auto started = Clock::now();
          // rechunk is part of the work it is compared with: it moves the data each time.
          const auto input =
              variant == "rechunk"
                  ? datasets.rechunk(data, cores / static_cast<unsigned>(driver.size()))
                  : data;
          const auto groups = input.group_by(bin_of).count().collect();
          h.push_back(seconds_since(started));
          std::vector<std::uint64_t> got(bins * bins, 0);
          for (const auto& g : groups)
            got[g.key] += g.count;
          if (got != histogram) throw strata::Error("the histogram differs from sequential C++");

          started = Clock::now();
          const auto kinput =
              variant == "rechunk"
                  ? datasets.rechunk(data, cores / static_cast<unsigned>(driver.size()))
                  : data;
          auto centers =
              datasets.from_host<Point>("centers", std::span<const Point>(start_centers), 1);
          for (int it = 0; it < iterations; ++it)
            centers = kinput.group_by(nearest, centers).aggregate(add).select(mean);
          const std::vector<Point> found = centers.collect();
          k.push_back(seconds_since(started));
          if (found.size() != kmeans.size()) throw strata::Error("k-means lost a cluster");
          for (const Point& c : found) {
            if (distance2(c, kmeans[nearest_of(c, kmeans)]) > 1e-18)
              throw strata::Error("k-means differs from sequential C++");
          }
        }
        emit("histogram", variant, bpc, h);
        emit("kmeans", variant, bpc, k);
      }
    }
  });
}
