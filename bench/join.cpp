// Hash join (build and probe) measured against std::unordered_multimap in one run (issue 41 §2,
// dandelion's join): 10^7 probe keys against 10^6 build keys (u32; distinct build keys, half of
// the probe keys drawn from them, half from elsewhere: about one match in two), joined by the
// CPU device's hash_join (a hash table of the build side, probed by tiles over its threads), by
// std::unordered_multimap (built and probed on one thread, as a program would use it: no size
// reserved), and by the OpenCL device (PoCL here; sort-merge) beside them. Every result is
// checked pair for pair against the multimap's (the same order: by probe index, then build).
//
// Usage: bench_join [--probe N] [--build M] [--repetitions R] [--out PREFIX]   (PREFIX.md, .json)

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bench_device.hpp"
#include "bench_flags.hpp"
#include "bench_json.hpp"
#include "bench_timing.hpp"
#include "strata/base/error.hpp"
#include "strata/device/backends.hpp"
#include "strata/primitives/device_primitives.hpp"

namespace {

using namespace strata;
using primitives::span_of;
using strata::bench::copy_from;
using strata::bench::copy_to;
using strata::bench::json_list;
using strata::bench::json_string;
using strata::bench::median_of;
using strata::bench::timed;

struct Sides {
  std::vector<std::uint32_t> build;
  std::vector<std::uint32_t> probe;
};

// The join's pairs, by probe index, then build index.
struct Pairs {
  std::vector<std::uint32_t> build;
  std::vector<std::uint32_t> probe;
  bool operator==(const Pairs&) const = default;
};

// `m` distinct random build keys; `n` probe keys, each a random build key or a random key.
Sides random_sides(std::size_t m, std::size_t n, unsigned seed) {
  std::mt19937 engine(seed);
  std::unordered_set<std::uint32_t> seen;
  Sides sides;
  while (sides.build.size() < m) {
    const std::uint32_t key = engine();
    if (seen.insert(key).second) sides.build.push_back(key);
  }
  std::uniform_int_distribution<std::size_t> pick(0, m - 1);
  sides.probe.resize(n);
  for (auto& key : sides.probe)
    key = engine() % 2 == 0 ? sides.build[pick(engine)] : static_cast<std::uint32_t>(engine());
  return sides;
}

// Built and probed on one thread; the pairs' room reserved from the expected count, as a
// program that knew it would.
Pairs multimap_join(const Sides& sides, std::size_t expected) {
  std::unordered_multimap<std::uint32_t, std::uint32_t> table;
  for (std::size_t b = 0; b < sides.build.size(); ++b)
    table.emplace(sides.build[b], static_cast<std::uint32_t>(b));
  Pairs pairs;
  pairs.build.reserve(expected);
  pairs.probe.reserve(expected);
  for (std::size_t p = 0; p < sides.probe.size(); ++p) {
    const auto [from, to] = table.equal_range(sides.probe[p]);
    for (auto it = from; it != to; ++it) {
      pairs.build.push_back(it->second);
      pairs.probe.push_back(static_cast<std::uint32_t>(p));
    }
  }
  return pairs;
}

// The device's hash_join, with room for the expected pairs; checked against them.
std::vector<double> device_join(device::Device& device, const Sides& sides, int repetitions,
                                const Pairs& expected) {
  primitives::DevicePrimitives primitives(device);
  const std::size_t m = sides.build.size(), n = sides.probe.size();
  const std::size_t room = std::max<std::size_t>(expected.build.size(), 1);
  device::DeviceBuffer build = device.allocate(m * 4), probe = device.allocate(n * 4);
  device::DeviceBuffer out_build = device.allocate(room * 4), out_probe = device.allocate(room * 4),
                       matches = device.allocate(8);
  copy_to(device, build, sides.build.data(), m * 4);
  copy_to(device, probe, sides.probe.data(), n * 4);
  const auto run = [&] {
    primitives
        .hash_join(span_of<std::uint32_t>(build, m), span_of<std::uint32_t>(probe, n),
                   span_of<std::uint32_t>(out_build, room), span_of<std::uint32_t>(out_probe, room),
                   span_of<std::uint64_t>(matches, 1))
        .wait();
  };
  run();  // untimed: the kernels compile and the outputs' pages are touched
  const auto seconds = timed(
      repetitions, [] {}, run);
  const std::uint64_t count = copy_from<std::uint64_t>(device, matches, 1)[0];
  const Pairs got{copy_from<std::uint32_t>(device, out_build, count),
                  copy_from<std::uint32_t>(device, out_probe, count)};
  if (got != expected) throw Error(device.info().id + ": its pairs differ from the multimap's");
  return seconds;
}

struct Series {
  std::string label;
  std::vector<double> seconds;
};

}  // namespace

int main(int argc, char** argv) try {
  std::size_t n = 10'000'000;
  std::size_t m = 1'000'000;
  int repetitions = 5;
  std::string out = "bench/results/join";
  bench::parse_flags(argc, argv,
                     {{{"--probe", [&](const std::string& v) { n = std::stoull(v); }},
                       {"--build", [&](const std::string& v) { m = std::stoull(v); }},
                       {"--repetitions", [&](const std::string& v) { repetitions = std::stoi(v); }},
                       {"--out", [&](const std::string& v) { out = v; }}},
                      {}});
  bench::CpuAndOpenCl devices;
  device::Device* cpu = devices.cpu;
  device::Device* opencl = devices.opencl;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const Sides sides = random_sides(m, n, 61);
  const Pairs expected = multimap_join(sides, 0);
  std::vector<Series> series;
  series.push_back({"CPU device hash_join", device_join(*cpu, sides, repetitions, expected)});
  Pairs peer;
  series.push_back(
      {"std::unordered_multimap (build + probe, one thread)",
       timed(
           repetitions, [] {}, [&] { peer = multimap_join(sides, expected.build.size()); })});
  if (peer != expected) throw Error("std::unordered_multimap: its pairs differ between runs");
  if (opencl != nullptr) {
    series.push_back({"OpenCL hash_join (sort-merge)",
                      device_join(*opencl, sides, std::min(repetitions, 1), expected)});
  }

  // The report.
  const std::string date = bench::utc_date();
  std::string command = "build/release/bin/bench_join";
  for (int i = 1; i < argc; ++i)
    command += std::string(" ") + argv[i];
  std::string md = fmt::format(
      "# Hash join against std::unordered_multimap\n\nDate: {} (host `{}`), CPU: {}, {} logical "
      "CPUs; OpenCL device: {}\n\n```\n{}\n```\n\n{} probe keys against {} distinct build keys "
      "(u32; half of the probe keys drawn from the build keys, half at random): {} pairs, each "
      "a build and a probe index. {} repetitions each (OpenCL: 1), every result checked pair "
      "for pair against std::unordered_multimap's. The CPU device runs on {} threads; the "
      "multimap on one (no size reserved; the pairs' vectors reserved).\n\n",
      date, bench::host_name(), bench::cpu_model(), threads,
      opencl != nullptr ? opencl->info().name : "none", command, n, m, expected.build.size(),
      repetitions, threads);
  md +=
      "| what | median s | min – max s | Mprobes/s |\n"
      "| --- | ---: | ---: | ---: |\n";
  for (const Series& s : series) {
    const double median = median_of(s.seconds);
    md += fmt::format("| {} | {:.4f} | {:.4f} – {:.4f} | {:.1f} |\n", s.label, median,
                      *std::min_element(s.seconds.begin(), s.seconds.end()),
                      *std::max_element(s.seconds.begin(), s.seconds.end()),
                      static_cast<double>(n) / median / 1e6);
  }
  md += fmt::format(
      "\nRatio of medians: std::unordered_multimap's time over hash_join's on the CPU device "
      "**{:.2f}x**\n",
      median_of(series[1].seconds) / median_of(series[0].seconds));
  std::ofstream(out + ".md") << md;
  std::string json = fmt::format(
      "{{\"date\": {}, \"host\": {}, \"cpu\": {}, \"threads\": {}, \"opencl_device\": {}, "
      "\"command\": {}, \"probe\": {}, \"build\": {}, \"pairs\": {}, \"series\": [",
      json_string(date), json_string(bench::host_name()), json_string(bench::cpu_model()), threads,
      json_string(opencl != nullptr ? opencl->info().name : "none"), json_string(command), n, m,
      expected.build.size());
  for (std::size_t i = 0; i < series.size(); ++i) {
    json += fmt::format("{}{{\"label\": {}, \"seconds\": {}}}", i ? ", " : "",
                        json_string(series[i].label), json_list(series[i].seconds));
  }
  std::ofstream(out + ".json") << json << "]}\n";
  std::fputs(md.c_str(), stdout);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_join: %s\n", e.what());
  return 1;
}
