// Group-by + sum and a hash join of data sets against pandas (bench/dataset_tables_pandas.py,
// the same rows): 10^7 rows of (key, value) summed by key (10^3 and 10^6 distinct keys), and
// 10^7 probe rows joined with 10^6 build rows. JSON lines, one per operation and key count.
//
//   bench_dataset_tables [--rows N] [--build M] [--repetitions R] [--out F]

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_flags.hpp"
#include "bench_json.hpp"
#include "strata/dataset/datasets.hpp"

namespace ds = strata::dataset;
using Clock = std::chrono::steady_clock;

namespace {

struct Row {
  std::uint64_t key = 0;
  double value = 0;
};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Row i of a table with `keys` distinct keys: the same formula as the pandas script.
Row row_of(std::uint64_t i, std::uint64_t keys) {
  return {mix(i) % keys, static_cast<double>(i % 1000) * 0.5};
}

const ds::Select<std::uint64_t, Row> rows_1e3("bench.rows_1e3", [](const std::uint64_t& i) {
  return row_of(i, 1000);
});
const ds::Select<std::uint64_t, Row> rows_1e6("bench.rows_1e6", [](const std::uint64_t& i) {
  return row_of(i, 1000000);
});
// Build rows: key i (every key once), value i.
const ds::Select<std::uint64_t, Row> build_rows("bench.build_rows", [](const std::uint64_t& i) {
  return Row{i, static_cast<double>(i)};
});
const ds::Select<Row, std::uint64_t> key_of("bench.key_of", [](const Row& r) { return r.key; });
const ds::Select<Row, double> value_of("bench.value_of", [](const Row& r) { return r.value; });
const ds::Combine<double> add("bench.add", [](const double& a, const double& b) { return a + b; });

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t rows = 10000000;
  std::uint64_t build = 1000000;
  int repetitions = 5;
  std::string out_path = "dataset-tables.json";
  strata::bench::parse_flags(
      argc, argv,
      {{{"--rows", [&](const std::string& v) { rows = std::stoull(v); }},
        {"--build", [&](const std::string& v) { build = std::stoull(v); }},
        {"--repetitions", [&](const std::string& v) { repetitions = std::stoi(v); }},
        {"--out", [&](const std::string& v) { out_path = v; }}},
       {}});
  strata::node::Node node(argc, argv);
  ds::Datasets::prepare(node);
  return node.program().run([&](strata::cluster::Driver& driver) {
    std::ofstream out(out_path);
    const auto emit = [&](const std::string& operation, std::uint64_t keys, std::uint64_t result,
                          const std::vector<double>& times) {
      const std::string line = fmt::format(
          "{{\"tool\": \"strata\", \"operation\": {}, \"rows\": {}, \"keys\": {}, "
          "\"result_rows\": {}, \"ranks\": {}, \"median\": {:.9g}, \"seconds\": {}}}",
          strata::bench::json_string(operation), rows, keys, result, driver.size(),
          strata::bench::median_of(times), strata::bench::json_list(times));
      out << line << '\n';
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    };
    ds::Datasets datasets(node, driver, {0, ds::TaskUnit::partition, 1u << 20});
    for (const std::uint64_t keys : {std::uint64_t{1000}, std::uint64_t{1000000}}) {
      const auto table = datasets.generate<Row>("rows", rows, keys == 1000 ? rows_1e3 : rows_1e6);
      driver.wait_all();  // made before timing
      std::vector<double> times;
      std::uint64_t groups = 0;
      for (int r = 0; r < repetitions; ++r) {
        const auto started = Clock::now();
        const auto sums = table.group_by(key_of).aggregate(value_of, add);
        groups = sums.count();
        times.push_back(seconds_since(started));
      }
      if (groups > keys) throw strata::Error(fmt::format("{} groups of {} keys", groups, keys));
      emit("group_by_sum", keys, groups, times);
    }
    const auto probe = datasets.generate<Row>("probe", rows, rows_1e6);
    const auto built = datasets.generate<Row>("build", build, build_rows);
    driver.wait_all();
    std::vector<double> times;
    std::uint64_t pairs = 0;
    for (int r = 0; r < repetitions; ++r) {
      const auto started = Clock::now();
      pairs = probe.join(built, key_of, key_of).count();
      times.push_back(seconds_since(started));
    }
    if (pairs > rows) throw strata::Error(fmt::format("{} pairs of {} rows", pairs, rows));
    emit("join", build, pairs, times);
  });
}
