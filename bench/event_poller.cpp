// The CUDA backend's event poller with many operations queued, with and without lanes, in the
// same run (no GPU: the streams are simulated; a plain timed program, JSON out).
//
// Two simulated CUDA streams, each finishing its operations in order, one every `period` ns once
// submitted (an operation's finish time is computed when it is submitted; no device thread).
// Every operation is watched by the poller; its check() spins `query` ns (the cost of a
// cudaEventQuery) and finishes once its time has come. The *queue* stream keeps `window`
// operations in flight (a finished one submits the next from its completion, as an event callback
// enqueuing more work does): the thousands of small chunks' copies and kernels the runtime queues
// ahead. The *chain* stream has one operation at a time, the next submitted when the poller saw
// the last finish: work that waits on the host for a device event (a chunk's eviction before the
// next upload, a reduction's combine). "lanes": operations carry their stream and place, so a
// round asks only each stream's oldest unfinished operation; "every": they do not, and each round
// asks every watched operation (the poller's policy before lanes). Per run: the chain's
// operations per second (the device alone allows 1e9/period), how late the poller saw a chain
// operation finished (median, 99th percentile), and questions per finished operation.
//
// Then a burst: `burst` operations of `burst_period` each submitted at once on one stream (a batch
// of kernel launches queued ahead, as Arrays::launch does), watched with lanes; per operation how
// late the poller saw it finished, against its duration (the poller aims at 1/64 of it).
#include "event_poller.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using strata::device::cuda::EventPoller;
using strata::device::cuda::Pollable;
using strata::device::cuda::PollOrder;

struct Options {
  std::vector<std::size_t> windows{0, 64, 256, 1024, 4096};
  std::size_t chain = 5000;
  std::int64_t period_ns = 5000;
  std::int64_t query_ns = 300;
  int repetitions = 5;
  std::size_t burst = 20;
  std::int64_t burst_period_ns = 1'000'000;
};

void spin_for(std::int64_t ns) {
  const auto until = Clock::now() + std::chrono::nanoseconds(ns);
  while (Clock::now() < until) {
  }
}

// One simulated stream and the operations submitted to it. Submissions to one stream come one at
// a time (from the poller's thread, or before it saw any), as a queue's issuer makes them.
struct Stream {
  const Options* options = nullptr;
  EventPoller* poller = nullptr;
  std::atomic<std::uint64_t>* questions = nullptr;
  bool lanes = false;
  std::size_t window = 1;  // operations in flight
  std::size_t limit = 0;   // operations in all (0: until stopped)
  std::atomic<bool> stopped{false};
  Clock::time_point device_free;  // when the device finishes the last submitted operation
  std::vector<Clock::time_point> done_at, seen_at;  // kept for a limited stream only
  std::atomic<std::size_t> seen{0};
  void submit(std::size_t index);
};

struct Operation final : Pollable {
  Stream* stream = nullptr;
  std::size_t index = 0;
  Clock::time_point done;
  bool check() override {
    ++*stream->questions;
    spin_for(stream->options->query_ns);
    const auto now = Clock::now();
    if (now < done) return false;
    if (stream->limit != 0) stream->seen_at[index] = now;
    ++stream->seen;
    stream->submit(index + stream->window);
    return true;
  }
  PollOrder order() override { return stream->lanes ? PollOrder{stream, index} : PollOrder{}; }
};

void Stream::submit(std::size_t index) {
  if (stopped || (limit != 0 && index >= limit)) return;
  auto operation = std::make_shared<Operation>();
  operation->stream = this;
  operation->index = index;
  device_free = std::max(device_free, Clock::now()) + std::chrono::nanoseconds(options->period_ns);
  operation->done = device_free;
  if (limit != 0) done_at[index] = operation->done;
  poller->watch(std::move(operation));
}

struct Run {
  double chain_per_second = 0;
  double late_median_us = 0;
  double late_p99_us = 0;
  double questions_per_operation = 0;
};

Run run_once(const Options& options, std::size_t window, bool lanes) {
  std::atomic<std::uint64_t> questions{0};
  EventPoller poller;
  Stream queue, chain;
  for (Stream* stream : {&queue, &chain}) {
    stream->options = &options;
    stream->poller = &poller;
    stream->questions = &questions;
    stream->lanes = lanes;
  }
  queue.window = window;
  chain.limit = options.chain;
  chain.done_at.resize(options.chain);
  chain.seen_at.resize(options.chain);
  // The queue's operations are watched first, then the chain starts.
  for (std::size_t i = 0; i < window; ++i)
    queue.submit(i);
  while (poller.watched() > 0 && queue.seen == 0 && window > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(10));
  const auto start = Clock::now();
  chain.submit(0);
  while (chain.seen < options.chain)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  const double seconds = std::chrono::duration<double>(chain.seen_at.back() - start).count();
  queue.stopped = true;
  while (poller.watched() != 0)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  std::vector<double> late(options.chain);
  for (std::size_t i = 0; i < options.chain; ++i)
    late[i] =
        std::chrono::duration<double, std::micro>(chain.seen_at[i] - chain.done_at[i]).count();
  std::sort(late.begin(), late.end());
  Run run;
  run.chain_per_second = static_cast<double>(options.chain) / seconds;
  run.late_median_us = late[late.size() / 2];
  run.late_p99_us = late[late.size() * 99 / 100];
  run.questions_per_operation =
      static_cast<double>(questions.load()) / static_cast<double>(chain.seen + queue.seen);
  return run;
}

struct Burst {
  double late_median_us = 0;
  double late_max_us = 0;
  double late_last_us = 0;  // the batch's end: when the host learns the whole queue finished
  double questions_per_operation = 0;
};

Burst run_burst(const Options& options) {
  Options burst_options = options;
  burst_options.period_ns = options.burst_period_ns;
  std::atomic<std::uint64_t> questions{0};
  EventPoller poller;
  Stream stream;
  stream.options = &burst_options;
  stream.poller = &poller;
  stream.questions = &questions;
  stream.lanes = true;
  stream.window = options.burst;  // nothing submitted from a completion
  stream.limit = options.burst;
  stream.done_at.resize(options.burst);
  stream.seen_at.resize(options.burst);
  for (std::size_t i = 0; i < options.burst; ++i)
    stream.submit(i);
  while (stream.seen < options.burst)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  std::vector<double> late(options.burst);
  for (std::size_t i = 0; i < options.burst; ++i)
    late[i] =
        std::chrono::duration<double, std::micro>(stream.seen_at[i] - stream.done_at[i]).count();
  Burst burst;
  if (late.empty()) return burst;
  burst.late_last_us = late.back();
  std::sort(late.begin(), late.end());
  burst.late_median_us = late[late.size() / 2];
  burst.late_max_us = late.back();
  burst.questions_per_operation =
      static_cast<double>(questions.load()) / static_cast<double>(options.burst);
  return burst;
}

std::vector<std::size_t> parse_list(const std::string& text) {
  std::vector<std::size_t> values;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    values.push_back(std::stoul(text.substr(at, comma - at)));
    at = comma + 1;
  }
  return values;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(fmt::format("{} needs a value", flag));
    const std::string value = argv[++i];
    if (flag == "--windows") {
      options.windows = parse_list(value);
    } else if (flag == "--chain") {
      options.chain = std::stoul(value);
    } else if (flag == "--period-ns") {
      options.period_ns = std::stol(value);
    } else if (flag == "--query-ns") {
      options.query_ns = std::stol(value);
    } else if (flag == "--burst") {
      options.burst = std::stoul(value);
    } else if (flag == "--burst-period-ns") {
      options.burst_period_ns = std::stol(value);
    } else if (flag == "--repetitions") {
      options.repetitions = std::stoi(value);
    } else {
      throw std::invalid_argument(
          fmt::format("unknown option {} (--windows A,B,.. --chain N --period-ns T --query-ns Q "
                      "--burst N --burst-period-ns T --repetitions R)",
                      flag));
    }
  }
  if (options.chain == 0 || options.repetitions < 1 || options.windows.empty() ||
      options.burst == 0 || options.burst_period_ns < 1)
    throw std::invalid_argument(
        "--chain, --burst, --burst-period-ns and --repetitions must be at "
        "least 1");
  return options;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse(argc, argv);
  std::printf(
      "{\"chain\": %zu, \"period_ns\": %lld, \"query_ns\": %lld, \"burst\": %zu, "
      "\"burst_period_ns\": %lld, \"runs\": [\n",
      options.chain, static_cast<long long>(options.period_ns),
      static_cast<long long>(options.query_ns), options.burst,
      static_cast<long long>(options.burst_period_ns));
  bool first = true;
  // Repetitions outside, windows and policies inside (their order swapped every other
  // repetition): drift hits every point alike.
  for (int repetition = 0; repetition < options.repetitions; ++repetition) {
    for (std::size_t window : options.windows) {
      for (bool lanes : {repetition % 2 == 0, repetition % 2 != 0}) {
        const Run run = run_once(options, window, lanes);
        std::printf(
            "%s  {\"repetition\": %d, \"window\": %zu, \"policy\": \"%s\", "
            "\"chain_per_second\": %.1f, \"late_median_us\": %.2f, \"late_p99_us\": %.2f, "
            "\"questions_per_operation\": %.3f}",
            first ? "" : ",\n", repetition, window, lanes ? "lanes" : "every", run.chain_per_second,
            run.late_median_us, run.late_p99_us, run.questions_per_operation);
        std::fflush(stdout);
        first = false;
      }
    }
  }
  std::printf("\n], \"bursts\": [\n");
  for (int repetition = 0; repetition < options.repetitions; ++repetition) {
    const Burst burst = run_burst(options);
    std::printf(
        "%s  {\"repetition\": %d, \"late_median_us\": %.2f, \"late_max_us\": %.2f, "
        "\"late_last_us\": %.2f, \"questions_per_operation\": %.3f}",
        repetition == 0 ? "" : ",\n", repetition, burst.late_median_us, burst.late_max_us,
        burst.late_last_us, burst.questions_per_operation);
    std::fflush(stdout);
  }
  std::printf("\n]}\n");
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "bench_event_poller: %s\n", error.what());
  return 2;
}
