// Group-by count and sum measured against hash maps in one run (issue 41 §2): 10^7 records of a
// u32 key and an i64 value, with 10^3 and 10^6 distinct keys, aggregated by the CPU device's
// aggregate_by_key (hashing), by its group_by + group_sums (sorting), by std::unordered_map and,
// where the build found Abseil, absl::flat_hash_map (one thread each, as a program would use
// them: no size reserved), and by the OpenCL device (PoCL here) beside them. Every result is
// checked against std::unordered_map's.
//
// Usage: bench_group_by [--records N] [--repetitions R] [--out PREFIX]   (PREFIX.md, PREFIX.json)

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bench_device.hpp"
#include "bench_flags.hpp"
#include "bench_json.hpp"
#include "bench_timing.hpp"
#include "strata/base/error.hpp"
#include "strata/device/backends.hpp"
#include "strata/primitives/device_primitives.hpp"

#if STRATA_BENCH_WITH_ABSL
#include <absl/container/flat_hash_map.h>
#endif

namespace {

using namespace strata;
using primitives::span_of;
using strata::bench::copy_from;
using strata::bench::copy_to;
using strata::bench::json_list;
using strata::bench::json_string;
using strata::bench::median_of;
using strata::bench::timed;

// Per key: how many records and the sum of their values.
using Aggregate = std::unordered_map<std::uint32_t, std::pair<std::uint32_t, std::int64_t>>;

struct Records {
  std::vector<std::uint32_t> keys;
  std::vector<std::int64_t> values;
};

// `n` records whose keys are drawn uniformly from `distinct` random 32-bit keys.
Records random_records(std::size_t n, std::size_t distinct, unsigned seed) {
  std::mt19937 engine(seed);
  std::vector<std::uint32_t> pool(distinct);
  for (auto& key : pool)
    key = engine();
  std::uniform_int_distribution<std::size_t> pick(0, distinct - 1);
  Records records{std::vector<std::uint32_t>(n), std::vector<std::int64_t>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    records.keys[i] = pool[pick(engine)];
    records.values[i] = static_cast<std::int64_t>(engine() % 1000) - 500;
  }
  return records;
}

template <typename Map>
Map aggregate_in(const Records& records) {
  Map groups;
  for (std::size_t i = 0; i < records.keys.size(); ++i) {
    auto& [count, sum] = groups[records.keys[i]];
    ++count;
    sum += records.values[i];
  }
  return groups;
}

void check(const Aggregate& got, const Aggregate& expected, const std::string& who) {
  if (got != expected) throw Error(who + ": its groups differ from std::unordered_map's");
}

// The device's groups as a map (each key once).
Aggregate download_groups(device::Device& device, const device::DeviceBuffer& keys,
                          const device::DeviceBuffer& counts, const device::DeviceBuffer& sums,
                          std::uint64_t groups) {
  const auto k = copy_from<std::uint32_t>(device, keys, groups);
  const auto c = copy_from<std::uint32_t>(device, counts, groups);
  const auto s = copy_from<std::int64_t>(device, sums, groups);
  Aggregate out;
  for (std::size_t g = 0; g < groups; ++g)
    if (!out.emplace(k[g], std::pair{c[g], s[g]}).second)
      throw Error(device.info().id + ": key " + std::to_string(k[g]) + " in two groups");
  return out;
}

// The device's fused aggregate_by_key, or its group_by followed by group_sums (`sorted`).
std::vector<double> device_group_by(device::Device& device, const Records& records, bool sorted,
                                    int repetitions, const Aggregate& expected) {
  primitives::DevicePrimitives primitives(device);
  const std::size_t n = records.keys.size();
  device::DeviceBuffer keys = device.allocate(n * 4), values = device.allocate(n * 8);
  device::DeviceBuffer group_keys = device.allocate(n * 4), counts = device.allocate(n * 4),
                       sums = device.allocate(n * 8), groups = device.allocate(8);
  device::DeviceBuffer group_of = device.allocate(sorted ? n * 4 : 4),
                       order = device.allocate(sorted ? n * 4 : 4),
                       starts = device.allocate(sorted ? n * 4 : 4);
  copy_to(device, keys, records.keys.data(), n * 4);
  copy_to(device, values, records.values.data(), n * 8);
  const auto run = [&] {
    if (!sorted) {
      primitives
          .aggregate_by_key(span_of<std::uint32_t>(keys, n), span_of<std::int64_t>(values, n),
                            span_of<std::uint32_t>(group_keys, n),
                            span_of<std::uint32_t>(counts, n), span_of<std::int64_t>(sums, n),
                            span_of<std::uint64_t>(groups, 1))
          .wait();
      return;
    }
    const primitives::Grouping grouping{
        span_of<std::uint32_t>(group_of, n),   span_of<std::uint32_t>(order, n),
        span_of<std::uint32_t>(group_keys, n), span_of<std::uint32_t>(starts, n),
        span_of<std::uint32_t>(counts, n),     span_of<std::uint64_t>(groups, 1)};
    const device::Event grouped = primitives.group_by(span_of<std::uint32_t>(keys, n), grouping);
    primitives
        .group_sums(span_of<std::int64_t>(values, n), grouping, span_of<std::int64_t>(sums, n),
                    std::span(&grouped, 1))
        .wait();
  };
  run();  // untimed: the kernels compile and the outputs' pages are touched
  const auto seconds = timed(
      repetitions, [] {}, run);
  const std::uint64_t count = copy_from<std::uint64_t>(device, groups, 1)[0];
  check(download_groups(device, group_keys, counts, sums, count), expected, device.info().id);
  return seconds;
}

struct Series {
  std::string label;
  std::size_t distinct = 0;
  std::vector<double> seconds;
};

}  // namespace

int main(int argc, char** argv) try {
  std::size_t n = 10'000'000;
  int repetitions = 5;
  std::string out = "bench/results/group-by";
  bench::parse_flags(argc, argv,
                     {{{"--records", [&](const std::string& v) { n = std::stoull(v); }},
                       {"--repetitions", [&](const std::string& v) { repetitions = std::stoi(v); }},
                       {"--out", [&](const std::string& v) { out = v; }}},
                      {}});
  bench::CpuAndOpenCl devices;
  device::Device* cpu = devices.cpu;
  device::Device* opencl = devices.opencl;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<std::size_t> distincts{1'000, 1'000'000};
  std::vector<Series> series;
  for (const std::size_t distinct : distincts) {
    const Records records = random_records(n, distinct, static_cast<unsigned>(distinct));
    const Aggregate expected = aggregate_in<Aggregate>(records);
    series.push_back({"CPU device aggregate_by_key (hashing)", distinct,
                      device_group_by(*cpu, records, false, repetitions, expected)});
    series.push_back({"CPU device group_by + group_sums (sorting)", distinct,
                      device_group_by(*cpu, records, true, repetitions, expected)});
    Aggregate peer;
    series.push_back({"std::unordered_map", distinct,
                      timed(
                          repetitions, [] {}, [&] { peer = aggregate_in<Aggregate>(records); })});
    check(peer, expected, "std::unordered_map");
#if STRATA_BENCH_WITH_ABSL
    using Flat = absl::flat_hash_map<std::uint32_t, std::pair<std::uint32_t, std::int64_t>>;
    Flat flat;
    series.push_back({"absl::flat_hash_map", distinct,
                      timed(
                          repetitions, [] {}, [&] { flat = aggregate_in<Flat>(records); })});
    check(Aggregate(flat.begin(), flat.end()), expected, "absl::flat_hash_map");
#endif
    if (opencl != nullptr) {
      series.push_back(
          {"OpenCL aggregate_by_key (sorting)", distinct,
           device_group_by(*opencl, records, false, std::min(repetitions, 2), expected)});
    }
    std::fprintf(stderr, "grouped %zu records by %zu keys\n", n, distinct);
  }

  // The report.
  const std::string date = bench::utc_date();
  std::string command = "build/release/bin/bench_group_by";
  for (int i = 1; i < argc; ++i)
    command += std::string(" ") + argv[i];
  const auto median_for = [&](const std::string& label, std::size_t distinct) {
    for (const Series& s : series)
      if (s.label == label && s.distinct == distinct) return median_of(s.seconds);
    return 0.0;
  };
  std::string md = fmt::format(
      "# Group-by count and sum against hash maps\n\nDate: {} (host `{}`), CPU: {}, {} logical "
      "CPUs; OpenCL device: {}\n\n```\n{}\n```\n\n{} records of a u32 key (drawn uniformly from "
      "that many random keys) and an i64 value; each key's count and sum. {} repetitions each "
      "(OpenCL: 2), every result checked against std::unordered_map's. The CPU device runs on "
      "{} threads; the hash maps on one, with no size reserved.\n\n",
      date, bench::host_name(), bench::cpu_model(), threads,
      opencl != nullptr ? opencl->info().name : "none", command, n, repetitions, threads);
  md +=
      "| what | distinct keys | median s | min – max s | Mrecords/s |\n"
      "| --- | ---: | ---: | ---: | ---: |\n";
  for (const Series& s : series) {
    const double median = median_of(s.seconds);
    md += fmt::format("| {} | {} | {:.4f} | {:.4f} – {:.4f} | {:.1f} |\n", s.label, s.distinct,
                      median, *std::min_element(s.seconds.begin(), s.seconds.end()),
                      *std::max_element(s.seconds.begin(), s.seconds.end()),
                      static_cast<double>(n) / median / 1e6);
  }
  md += "\nRatios of medians (the peer's time over aggregate_by_key's on the CPU device):\n\n";
  for (const std::size_t distinct : distincts) {
    const double ours = median_for("CPU device aggregate_by_key (hashing)", distinct);
    md += fmt::format("- {} distinct keys: std::unordered_map **{:.2f}x**", distinct,
                      median_for("std::unordered_map", distinct) / ours);
#if STRATA_BENCH_WITH_ABSL
    md += fmt::format(", absl::flat_hash_map **{:.2f}x**",
                      median_for("absl::flat_hash_map", distinct) / ours);
#endif
    md += fmt::format(", group_by + group_sums {:.2f}x\n",
                      median_for("CPU device group_by + group_sums (sorting)", distinct) / ours);
  }
  std::ofstream(out + ".md") << md;
  std::string json = fmt::format(
      "{{\"date\": {}, \"host\": {}, \"cpu\": {}, \"threads\": {}, \"opencl_device\": {}, "
      "\"command\": {}, \"records\": {}, \"series\": [",
      json_string(date), json_string(bench::host_name()), json_string(bench::cpu_model()), threads,
      json_string(opencl != nullptr ? opencl->info().name : "none"), json_string(command), n);
  for (std::size_t i = 0; i < series.size(); ++i) {
    json +=
        fmt::format("{}{{\"label\": {}, \"distinct\": {}, \"seconds\": {}}}", i ? ", " : "",
                    json_string(series[i].label), series[i].distinct, json_list(series[i].seconds));
  }
  std::ofstream(out + ".json") << json << "]}\n";
  std::fputs(md.c_str(), stdout);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_group_by: %s\n", e.what());
  return 1;
}
