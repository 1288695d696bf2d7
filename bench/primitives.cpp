// The device primitives measured against their peers in one run (issue 41 §2): the CPU device's
// radix sort of 32-bit keys against std::sort and oneTBB's parallel_sort of the same keys, at
// 10^6, 10^7 and 10^8 keys; keys with values against oneTBB sorting (key, value) pairs; the
// exclusive scan against copying the same bytes (std::memcpy on one thread, and split over as
// many threads as the CPU device runs blocks on, the machine's copy bandwidth); and the same
// primitives on the OpenCL device (PoCL here) beside them. Every result is checked (sorted, the
// same keys; the scan against a sequential sum) after its last repetition.
//
// Usage: bench_primitives [--max-keys N] [--repetitions R] [--out PREFIX]
//        [--scan-only]   (writes PREFIX.md and PREFIX.json)

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_device.hpp"
#include "bench_flags.hpp"
#include "bench_json.hpp"
#include "bench_timing.hpp"
#include "strata/base/error.hpp"
#include "strata/device/backends.hpp"
#include "strata/primitives/device_primitives.hpp"

#if STRATA_BENCH_WITH_TBB
#include <tbb/parallel_sort.h>
#endif

namespace {

using namespace strata;
using primitives::span_of;
using strata::bench::copy_from;
using strata::bench::copy_to;
using strata::bench::host_name;
using strata::bench::json_list;
using strata::bench::json_string;
using strata::bench::median_of;
using strata::bench::timed;

std::vector<std::uint32_t> random_keys(std::size_t n, unsigned seed) {
  std::mt19937 engine(seed);
  std::vector<std::uint32_t> keys(n);
  for (auto& key : keys)
    key = engine();
  return keys;
}

struct Series {
  std::string label;
  std::string what;  // "sort" or "copy"
  std::size_t n = 0;
  std::vector<double> seconds;
};

void check_sorted(const std::vector<std::uint32_t>& sorted, std::vector<std::uint32_t> keys,
                  const std::string& who) {
  std::sort(keys.begin(), keys.end());
  if (sorted != keys) throw Error(who + ": the sort's result differs from std::sort's");
}

// One device's radix sort of `keys` (and values, when `with_values`).
std::vector<double> device_sort(device::Device& device, const std::vector<std::uint32_t>& keys,
                                bool with_values, int repetitions, bool check) {
  primitives::DevicePrimitives primitives(device);
  const std::size_t n = keys.size();
  device::DeviceBuffer dkeys = device.allocate(n * 4);
  device::DeviceBuffer dvalues = device.allocate(with_values ? n * 4 : 4);
  std::vector<std::uint32_t> values(with_values ? n : 0);
  std::iota(values.begin(), values.end(), 0u);
  const auto seconds = timed(
      repetitions,
      [&] {
        copy_to(device, dkeys, keys.data(), n * 4);
        if (with_values) copy_to(device, dvalues, values.data(), n * 4);
      },
      [&] {
        primitives
            .radix_sort(span_of<std::uint32_t>(dkeys, n),
                        with_values ? span_of<std::uint32_t>(dvalues, n) : primitives::DeviceSpan{})
            .wait();
      });
  if (check) {
    const auto sorted = copy_from<std::uint32_t>(device, dkeys, n);
    check_sorted(sorted, keys, device.info().id);
    if (with_values) {
      const auto moved = copy_from<std::uint32_t>(device, dvalues, n);
      for (std::size_t i = 0; i < n; ++i)
        if (keys[moved[i]] != sorted[i]) throw Error(device.info().id + ": a value lost its key");
    }
  }
  return seconds;
}

std::vector<double> device_scan(device::Device& device, const std::vector<std::uint32_t>& in,
                                int repetitions) {
  primitives::DevicePrimitives primitives(device);
  const std::size_t n = in.size();
  device::DeviceBuffer din = device.allocate(n * 4);
  device::DeviceBuffer dout = device.allocate(n * 4);
  copy_to(device, din, in.data(), n * 4);
  // One untimed run first: the kernels compile and the output's pages are touched.
  primitives.exclusive_scan(span_of<std::uint32_t>(din, n), span_of<std::uint32_t>(dout, n)).wait();
  const auto seconds = timed(
      repetitions, [] {},
      [&] {
        primitives.exclusive_scan(span_of<std::uint32_t>(din, n), span_of<std::uint32_t>(dout, n))
            .wait();
      });
  const auto out = copy_from<std::uint32_t>(device, dout, n);
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (out[i] != sum)
      throw Error(device.info().id + ": the scan differs at element " + std::to_string(i));
    sum += in[i];
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) try {
  std::size_t max_keys = 100'000'000;
  int repetitions = 5;
  std::string out = "bench/results/primitives";
  bool scan_only = false;
  bench::parse_flags(argc, argv,
                     {{{"--max-keys", [&](const std::string& v) { max_keys = std::stoull(v); }},
                       {"--repetitions", [&](const std::string& v) { repetitions = std::stoi(v); }},
                       {"--out", [&](const std::string& v) { out = v; }}},
                      {{"--scan-only", [&] { scan_only = true; }}}});
  bench::CpuAndOpenCl devices;
  device::Device* cpu = devices.cpu;
  device::Device* opencl = devices.opencl;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Series> series;
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1'000'000; n <= max_keys && !scan_only; n *= 10)
    sizes.push_back(n);
  for (std::size_t n : sizes) {
    const std::vector<std::uint32_t> keys = random_keys(n, static_cast<unsigned>(n));
    std::vector<std::uint32_t> work;
    const auto reset = [&] { work = keys; };
    series.push_back(
        {"CPU device radix sort", "sort", n, device_sort(*cpu, keys, false, repetitions, true)});
    series.push_back({"std::sort", "sort", n,
                      timed(repetitions, reset, [&] { std::sort(work.begin(), work.end()); })});
#if STRATA_BENCH_WITH_TBB
    series.push_back({"oneTBB parallel_sort", "sort", n, timed(repetitions, reset, [&] {
                        tbb::parallel_sort(work.begin(), work.end());
                      })});
#endif
    if (opencl != nullptr && n <= 10'000'000) {
      series.push_back({"OpenCL radix sort", "sort", n,
                        device_sort(*opencl, keys, false, std::min(repetitions, 3), true)});
    }
    std::fprintf(stderr, "sorted %zu keys\n", n);
  }
  // Keys with values at 10^7: the CPU device's against oneTBB sorting pairs by key.
  const std::size_t pairs_n = std::min<std::size_t>(10'000'000, max_keys);
  if (!scan_only) {
    const std::vector<std::uint32_t> keys = random_keys(pairs_n, 7);
    series.push_back({"CPU device radix sort, keys and values", "pairs", pairs_n,
                      device_sort(*cpu, keys, true, repetitions, true)});
#if STRATA_BENCH_WITH_TBB
    std::vector<std::pair<std::uint32_t, std::uint32_t>> work;
    series.push_back({"oneTBB parallel_sort of (key, value) pairs", "pairs", pairs_n,
                      timed(
                          repetitions,
                          [&] {
                            work.resize(pairs_n);
                            for (std::size_t i = 0; i < pairs_n; ++i)
                              work[i] = {keys[i], static_cast<std::uint32_t>(i)};
                          },
                          [&] {
                            tbb::parallel_sort(work.begin(), work.end(),
                                               [](auto& a, auto& b) { return a.first < b.first; });
                          })});
#endif
  }
  // Scan of max_keys u32 against copying its bytes.
  const std::size_t scan_n = max_keys;
  {
    const std::vector<std::uint32_t> in = random_keys(scan_n, 3);
    series.push_back(
        {"CPU device exclusive scan", "scan", scan_n, device_scan(*cpu, in, repetitions)});
    if (opencl != nullptr)
      series.push_back(
          {"OpenCL exclusive scan", "scan", scan_n, device_scan(*opencl, in, repetitions)});
    std::vector<std::uint32_t> copy(scan_n, 1);  // pages touched before timing
    series.push_back(
        {"memcpy, one thread", "scan", scan_n,
         timed(
             repetitions, [] {}, [&] { std::memcpy(copy.data(), in.data(), scan_n * 4); })});
    series.push_back({fmt::format("memcpy, {} threads", threads), "scan", scan_n,
                      timed(
                          repetitions, [] {},
                          [&] {
                            std::vector<std::thread> workers;
                            const std::size_t part = (scan_n + threads - 1) / threads;
                            for (unsigned t = 0; t < threads; ++t) {
                              workers.emplace_back([&, t] {
                                const std::size_t first = std::min(scan_n, t * part);
                                const std::size_t last = std::min(scan_n, first + part);
                                std::memcpy(copy.data() + first, in.data() + first,
                                            (last - first) * 4);
                              });
                            }
                            for (auto& worker : workers)
                              worker.join();
                          })});
  }

  // The report.
  const std::string date = bench::utc_date();
  std::string command = "build/release/bin/bench_primitives";
  for (int i = 1; i < argc; ++i)
    command += std::string(" ") + argv[i];
  const auto median_of_series = [&](const std::string& label, std::size_t n) {
    for (const Series& s : series)
      if (s.label == label && s.n == n) return median_of(s.seconds);
    return 0.0;
  };
  std::string md = fmt::format(
      "# Device primitives against their peers\n\nDate: {} (host `{}`), CPU: {}, {} logical CPUs; "
      "OpenCL device: {}\n\n```\n{}\n```\n\nRandom 32-bit keys (std::mt19937); {} repetitions "
      "each (OpenCL sorts: at most 3), data prepared untimed before each; every result checked "
      "after its last repetition. The CPU device runs a kernel's tiles on {} threads (its default "
      "block runner: the calling thread and helpers).\n\n",
      date, host_name(), bench::cpu_model(), threads,
      opencl != nullptr ? opencl->info().name : "none", command, repetitions, threads);
  md += "| what | n | median s | min – max s | Mkeys/s |\n| --- | ---: | ---: | ---: | ---: |\n";
  for (const Series& s : series) {
    const double median = median_of(s.seconds);
    md += fmt::format("| {} | {} | {:.4f} | {:.4f} – {:.4f} | {:.1f} |\n", s.label, s.n, median,
                      *std::min_element(s.seconds.begin(), s.seconds.end()),
                      *std::max_element(s.seconds.begin(), s.seconds.end()),
                      static_cast<double>(s.n) / median / 1e6);
  }
  md += "\nRatios of medians (the peer's time over ours):\n\n";
  for (std::size_t n : sizes) {
    md += fmt::format(
        "- {} keys: std::sort / radix sort **{:.2f}x**", n,
        median_of_series("std::sort", n) / median_of_series("CPU device radix sort", n));
#if STRATA_BENCH_WITH_TBB
    md += fmt::format(
        ", oneTBB parallel_sort / radix sort **{:.2f}x**",
        median_of_series("oneTBB parallel_sort", n) / median_of_series("CPU device radix sort", n));
#endif
    md += "\n";
  }
#if STRATA_BENCH_WITH_TBB
  if (!scan_only)
    md += fmt::format("- {} keys with values: oneTBB pairs / radix sort **{:.2f}x**\n", pairs_n,
                      median_of_series("oneTBB parallel_sort of (key, value) pairs", pairs_n) /
                          median_of_series("CPU device radix sort, keys and values", pairs_n));
#endif
  const double scan = median_of_series("CPU device exclusive scan", scan_n);
  const double copy_one = median_of_series("memcpy, one thread", scan_n);
  const double copy_all = median_of_series(fmt::format("memcpy, {} threads", threads), scan_n);
  md += fmt::format(
      "- scan of {} u32 ({} MB in, {} MB out): {:.0f}% of one thread's memcpy bandwidth, "
      "{:.0f}% of {} threads' ({:.1f} GB/s copied against the scan's {:.1f} GB/s in)\n",
      scan_n, scan_n * 4 / 1'000'000, scan_n * 4 / 1'000'000, 100 * copy_one / scan,
      100 * copy_all / scan, threads,
      static_cast<double>(scan_n) * 4 / std::min(copy_one, copy_all) / 1e9,
      static_cast<double>(scan_n) * 4 / scan / 1e9);
  std::ofstream(out + ".md") << md;
  std::string json = fmt::format(
      "{{\"date\": {}, \"host\": {}, \"cpu\": {}, \"threads\": {}, \"opencl_device\": {}, "
      "\"command\": {}, \"series\": [",
      json_string(date), json_string(host_name()), json_string(bench::cpu_model()), threads,
      json_string(opencl != nullptr ? opencl->info().name : "none"), json_string(command));
  for (std::size_t i = 0; i < series.size(); ++i) {
    json += fmt::format("{}{{\"label\": {}, \"what\": {}, \"n\": {}, \"seconds\": {}}}",
                        i ? ", " : "", json_string(series[i].label), json_string(series[i].what),
                        series[i].n, json_list(series[i].seconds));
  }
  std::ofstream(out + ".json") << json << "]}\n";
  std::fputs(md.c_str(), stdout);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_primitives: %s\n", e.what());
  return 1;
}
