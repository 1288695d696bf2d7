#pragma once
// What every lightning program shares: its node's options, with the backends its --devices names
// (empty: the configuration's), the timed part of a run with the counts of what it planned, the
// line comparing the sequential reference's time with the run's, and how an error ends it.

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "strata/array/arrays.hpp"
#include "strata/cluster/driver.hpp"
#include "strata/device/settings.hpp"
#include "strata/node/node.hpp"

namespace strata::lightning {

inline node::NodeOptions node_options(const std::string& devices) {
  node::NodeOptions options;
  if (!devices.empty()) options.config.section<device::DeviceSettings>().backends = devices;
  return options;
}

// `chunk` rounded up to whole blocks: a superblock of whole blocks then covers exactly one chunk
// (a chunk that is not a multiple of the block makes every superblock straddle two chunks, whose
// parts must then be assembled, possibly across ranks).
inline std::uint64_t whole_blocks(std::uint64_t chunk, std::uint64_t block) {
  return (chunk + block - 1) / block * block;
}

// The planner's and the driver's counts (cumulative; subtract two to get a part of a run's).
struct PlanCounts {
  array::LaunchStats launch;
  cluster::PlanStats plan;
};

inline PlanCounts plan_counts(const array::Arrays& arrays, const cluster::Driver& driver) {
  return {arrays.stats(), driver.stats()};
}

inline PlanCounts operator-(const PlanCounts& after, const PlanCounts& before) {
  PlanCounts d;
  d.launch.launches = after.launch.launches - before.launch.launches;
  d.launch.superblocks = after.launch.superblocks - before.launch.superblocks;
  d.launch.direct_uses = after.launch.direct_uses - before.launch.direct_uses;
  d.launch.assembled_regions = after.launch.assembled_regions - before.launch.assembled_regions;
  d.launch.box_copies = after.launch.box_copies - before.launch.box_copies;
  d.launch.reduce_partials = after.launch.reduce_partials - before.launch.reduce_partials;
  d.launch.reused_regions = after.launch.reused_regions - before.launch.reused_regions;
  d.launch.kernel_tasks = after.launch.kernel_tasks - before.launch.kernel_tasks;
  d.plan.operations = after.plan.operations - before.plan.operations;
  d.plan.transfers = after.plan.transfers - before.plan.transfers;
  d.plan.bytes_transferred = after.plan.bytes_transferred - before.plan.bytes_transferred;
  d.plan.replicas_dropped = after.plan.replicas_dropped - before.plan.replicas_dropped;
  d.plan.messages = after.plan.messages - before.plan.messages;
  return d;
}

// One line a benchmark script parses: what the timed part planned, over all ranks.
inline void print_plan_counts(const PlanCounts& c) {
  const auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf(
      "plan (timed part): %llu launches, %llu superblocks in %llu kernel tasks, %llu assembled "
      "regions, %llu box copies, %llu operations, %llu transfers, %llu bytes between ranks, %llu "
      "plan messages\n",
      u(c.launch.launches), u(c.launch.superblocks), u(c.launch.kernel_tasks),
      u(c.launch.assembled_regions), u(c.launch.box_copies), u(c.plan.operations),
      u(c.plan.transfers), u(c.plan.bytes_transferred), u(c.plan.messages));
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The timed part of a run: its seconds and what it planned.
struct Timed {
  double seconds = 0;
  PlanCounts counts;
};

// Times `part` from the moment every operation queued before it has finished until every one it
// queued has.
template <class Part>
Timed time_part(array::Arrays& arrays, const cluster::Driver& driver, Part&& part) {
  arrays.synchronize();
  const PlanCounts before = plan_counts(arrays, driver);
  const auto start = std::chrono::steady_clock::now();
  part();
  arrays.synchronize();
  return {seconds_since(start), plan_counts(arrays, driver) - before};
}

// `compute()`'s result; its seconds in `seconds` (a sequential reference).
template <class Compute>
auto measure(double& seconds, Compute&& compute) {
  const auto start = std::chrono::steady_clock::now();
  auto result = compute();
  seconds = seconds_since(start);
  return result;
}

// The sequential reference's time beside the run's; `how` says how it computes ("one thread,
// double").
inline void print_reference(const char* how, double seconds, double run_seconds) {
  std::printf("sequential reference (%s): %.4f s, %.2fx the run's time\n", how, seconds,
              seconds / run_seconds);
}

// The same for a reference that computed one `round` (a search) of the run's `iterations`: its
// time is counted once per iteration.
inline void print_reference_per_round(const char* how, const char* round, double round_seconds,
                                      int iterations, double run_seconds) {
  const double seconds = round_seconds * iterations;
  std::printf(
      "sequential reference (%s): %.4f s a %s, %.4f s for %d iterations, %.2fx the run's time\n",
      how, round_seconds, round, seconds, iterations, seconds / run_seconds);
}

// `body()`'s exit status; an exception it throws ends the program with "PROGRAM: what" on
// stderr and status 1.
template <class Body>
int exit_status(const char* program, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
}

}  // namespace strata::lightning
